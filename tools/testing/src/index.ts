export { redisTest, uniqueQueueName } from './redis-test.ts';
export type { RedisTestContext } from './redis-test.ts';
export { waitFor } from './wait-for.ts';
export type { WaitForOptions } from './wait-for.ts';
