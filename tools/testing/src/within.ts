/**
 * Resolves as `promise` does, or rejects with `new Error(message())` if it is still pending after
 * `timeoutMs`: a test step that would otherwise hang until the test's own timeout, which cannot
 * say which step it was waiting for.
 */
export async function within<T>(promise: Promise<T>, timeoutMs: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message())), timeoutMs);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
