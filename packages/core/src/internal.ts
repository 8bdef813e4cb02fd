/**
 * `@jobs/core/internal`: what @jobs's own packages (producer, worker, reclaimer, the demo and the
 * tools) need from core and its users do not: connections, error mapping, parsing and partition
 * helpers. Not public: it may change in any release, without a major version.
 */
export { closeClient, connectRedis, duplicateClient, isRedisClient, parseClusterUrl, toJobsError, withRedisErrors } from './redis-connection.ts';
export { isRedisError, stripCommandArgs } from './redis-error-mapping.ts';
export { childLogger } from './logger.ts';
export { assertWholeNumber } from './whole-number.ts';
export { assertOptionKeys } from './option-keys.ts';
export type { OptionKeys } from './option-keys.ts';
export { QUEUE_OPTION_KEYS } from './queue-options.ts';
export { MAX_PARTITIONS, partitionIdSuffix, partitionName, partitionNames, partitionOfId } from './partitions.ts';
export { recordedPartitions } from './partition-routing.ts';
export { parseJobRecord, pairsToObject } from './job-record.ts';
export { assertListState } from './commands/views.ts';
export { SharedSubscriber } from './shared-subscriber.ts';
export { parseControlOrder, parseStoredOrder } from './control-order.ts';
export type { ControlOrder, WorkerOrder } from './control-order.ts';
export type { RedisConnection } from './redis-connection.ts';
export { checkTracingOptions, SPAN_KIND, SPAN_STATUS_ERROR, tracerOf } from './tracing-options.ts';
export type { TracerLike, TracerProviderLike, TracingOptions } from './tracing-options.ts';
export { FOREIGN_LIBRARY_WARNING, FUNCTION_LIBRARY_NAME, libraryOn, loadLibrary } from './function-library.ts';
export type { LibraryLoad, LibraryOnNode } from './function-library.ts';
export { FUNCTION_LIBRARY } from './generated/library.ts';
export { claimTokenBase } from './random-hex.ts';
export { leaveRegistry, RUNNING_IDS_MAX, sendHeartbeat } from './commands/workers.ts';
export type { HeartbeatReceipt, StoredOrder, WorkerHeartbeat } from './commands/workers.ts';
export { addHistory } from './commands/history.ts';
export { HISTORY_FIELD, runBucketOf } from './history-buckets.ts';
export { METRICS_SLOT_FIELDS } from './generated/constants.ts';
export { registryHolderOf } from './registry-holder.ts';
export { reasonLine, relativeTime, whyText } from './why-lines.ts';
