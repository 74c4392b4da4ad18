/**
 * Lease times shared by every lock an instance holds in Redis (a user's chat status, a queue slot, the record of
 * an ask in flight). Short leases renewed by a heartbeat: an instance that dies (kill -9, power loss) frees its
 * users and slots within `LEASE_TTL_MS`, while one that is alive renews twice before a lease could lapse.
 */

/** A lease nobody renews is gone after this long. */
export const LEASE_TTL_MS = 6_000;
/** Holders renew every lease this often. */
export const LEASE_RENEW_MS = 2_000;
/**
 * After Redis came back (restarted empty, or reachable again after an outage), no queue slot is granted for this
 * long, so that every instance re-registers the slots it still holds first (at least two heartbeats).
 */
export const LEASE_REBUILD_MS = 2 * LEASE_RENEW_MS + 1_000;
