// What the global set-up hands every test file through vitest's provide/inject.
declare module 'vitest' {
  export interface ProvidedContext {
    /** The Redis every integration test of this run talks to. */
    redisUrl: string;
  }
}

export {};
