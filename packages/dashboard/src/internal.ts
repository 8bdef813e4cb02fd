/**
 * `@jobs/dashboard/internal`: what @jobs's own packages (the reclaimer's daemon) need from the
 * dashboard and its users do not. Not public: it may change in any release, without a major version.
 */
export { requiresLogin } from './credentials.ts';
export { namedQueues } from './job-queue-source.ts';
export { isLoopbackHost } from './request-checks.ts';
