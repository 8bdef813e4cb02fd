// Types of test-summary.mjs, for the tests that import it.

/** The counts of one pass, or of one report, and the failures found outside tests. */
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
  problems: string[];
}

/** Each test pass: its report in every package's test-results/, and the turbo task that writes it. */
export declare const PASSES: Record<'single server' | 'scripts through EVALSHA' | 'Redis Cluster', { report: string; task: string }>;

/** The folders that hold packages, relative to the repo root. */
export declare const PACKAGE_GROUPS: readonly string[];

/** The counts of one vitest JSON report. */
export declare function countReport(root: string, data: unknown): Counts;

/** Counts every pass; `ran[pass]` lists the package folders whose task for that pass ran. */
export declare function countPasses(
  root: string,
  passes: readonly (keyof typeof PASSES)[],
  ran?: Partial<Record<keyof typeof PASSES, readonly string[]>>,
): { passes: (Counts & { pass: keyof typeof PASSES })[]; passed: number; failed: number; skipped: number };

/** The text `npm test` ends with. */
export declare function formatSummary(result: ReturnType<typeof countPasses>): string;
