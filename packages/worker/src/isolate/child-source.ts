import { childMain } from './child-main.ts';
import { errorCodec } from './error-codec.ts';
import { FORWARDED_LOG_LEVELS, FORWARDED_METHODS } from './protocol.ts';

/** How a kind's handler is isolated. */
export type Isolation = 'thread' | 'process';

/** How often a process child checks that the worker that started it is still its parent (ms). */
const ORPHAN_CHECK_MS = 250;

/**
 * The code a child runs, as text: started with `eval` (a thread) or `node -e` (a process), so
 * that nothing has to be found next to the worker's files, which a bundler may have merged into
 * one. The functions it is made of are written as TypeScript here and carried by their source.
 */
export function childSource(isolation: Isolation, moduleUrl: string): string {
  const common = [
    `codec: (${errorCodec.toString()})()`,
    // Written here, in text, so no bundler or test runner rewrites the import.
    'load: (url) => import(url)',
    "format: require('node:util').format",
    `moduleUrl: ${JSON.stringify(moduleUrl)}`,
    `methods: ${JSON.stringify(FORWARDED_METHODS)}`,
    `levels: ${JSON.stringify(FORWARDED_LOG_LEVELS)}`,
  ].join(',\n  ');
  const transport = isolation === 'thread' ? THREAD_TRANSPORT : PROCESS_TRANSPORT;
  return `'use strict';\n${NAMING_HELPER}${transport}\n(${childMain.toString()})({\n  ${common},\n  send, listen,\n});\n`;
}

/**
 * A bundler told to keep function names (esbuild's `keepNames`) adds calls to a helper of its
 * own inside the functions the child's code is made of, so the child defines a helper of that
 * name that does nothing. The probe's own text says what the helper is called, if there is one.
 */
function namingHelper(): string {
  function probe(): () => void {
    function named(): void {
      // Nothing: only its name matters.
    }
    return named;
  }
  const call = /([A-Za-z_$][\w$]*)\(\s*[A-Za-z_$][\w$]*\s*,\s*"named"\s*\)/.exec(probe.toString());
  return call === null ? '' : `var ${call[1] as string} = (target) => target;\n`;
}

const NAMING_HELPER = namingHelper();

const THREAD_TRANSPORT = `
const { parentPort } = require('node:worker_threads');
const send = (message) => parentPort.postMessage(message);
const listen = (onMessage) => parentPort.on('message', onMessage);
`;

/**
 * A process child: it ends when the worker disconnects, and a watchdog thread ends it when the
 * worker died without a word (SIGKILL), even while the handler keeps its event loop busy. The
 * terminal's SIGINT and SIGTERM are the worker's to act on: it ends its children itself.
 */
const PROCESS_TRANSPORT = `
const parent = process.ppid;
new (require('node:worker_threads').Worker)(
  'setInterval(() => { if (process.ppid !== ' + parent + ') process.kill(process.pid, "SIGKILL"); }, ${ORPHAN_CHECK_MS});',
  { eval: true },
).unref();
process.on('disconnect', () => process.exit(0));
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
const send = (message) => process.send(message);
const listen = (onMessage) => process.on('message', onMessage);
process.on('uncaughtException', (error) => {
  setTimeout(() => process.exit(1), 1000);
  try {
    process.send({ t: 'uncaught', error: (${errorCodec.toString()})().toRecord(error) }, () => process.exit(1));
  } catch {
    process.exit(1);
  }
});
`;
