/**
 * This script's command-line arguments, without the `--` that `pnpm run NAME -- ...` passes on
 * (npm drops it, pnpm does not): what the bench scripts hand `parseArgs`.
 */
export function scriptArgs(argv: readonly string[] = process.argv.slice(2)): string[] {
  return argv[0] === '--' ? argv.slice(1) : [...argv];
}
