import { PermanentError, type IsolatedHandler } from '@jobs/worker';

/** Stands in for CPU-bound work (an image resize): it keeps the child it runs in busy. */
function resize(width: number): number {
  let checksum = 0;
  for (let i = 0; i < width * 100_000; i += 1) checksum = (checksum + i) % 65_521;
  return checksum;
}

// Runs in a child process of the worker: the payload and result cross by structured clone.
const thumbnail: IsolatedHandler<{ image: string; width: number }, 'thumbnail'> = async ({ image, width }, { signal, log }) => {
  if (!image.endsWith('.png')) throw new PermanentError(`not a PNG: ${image}`);
  signal.throwIfAborted();
  log('resizing', image, 'to', width);
  return { image, width, checksum: resize(width), pid: process.pid };
};
export default thumbnail;
