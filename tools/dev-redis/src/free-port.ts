import { createServer } from 'node:net';

/**
 * Asks the kernel for a free TCP port on 127.0.0.1. The port is released before it is returned,
 * so a caller that binds it later must be ready to retry if another process took it meanwhile.
 */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the port the kernel gave us'));
        return;
      }
      const { port } = address;
      server.close(() => resolve(port));
    });
  });
}
