/**
 * A Lua script as `src/generated/` embeds it (see tools/generate-scripts.mjs): its source, its
 * SHA1, and `argv`, which lays out named keys and arguments in the order the script reads them.
 * `R` is the reply's type, from the script header's `Reply:` line.
 */
export interface LuaScript<K, A, R> {
  /** The file name under `scripts/`, without `.lua`. */
  readonly name: string;
  /** SHA1 of {@link source}: what EVALSHA names. */
  readonly sha1: string;
  /** Its function's name in the generated function library (`FUNCTION_LIBRARY`): what FCALL names. */
  readonly fn: string;
  /** The source with its includes expanded: what EVAL runs. */
  readonly source: string;
  /** The keys' names in the header, in KEYS order (the last may be variadic). */
  readonly keyNames: readonly string[];
  /** The arguments' names in the header, in ARGV order (the last may be variadic). */
  readonly argNames: readonly string[];
  /** EVALSHA's arguments in one array: SHA1, key count, keys, then arguments (FCALL's, with {@link fn} in place of the SHA1). */
  argv(keys: K, args: A): string[];
  /** Never set: carries the reply type. */
  readonly reply?: R;
}

/** Any generated script. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyLuaScript = LuaScript<any, any, unknown>;

/** The reply type of script `S`. */
export type ReplyOf<S> = S extends LuaScript<unknown, unknown, infer R> ? R : never;
