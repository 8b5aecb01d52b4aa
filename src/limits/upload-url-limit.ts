// Upload URLs issued per organization per minute (RATE_LIMIT_UPLOAD_URLS_PER_MINUTE): each prepare of attachments,
// relationship evidence or an import counts its URLs; past the cap it is refused with 429 and Retry-After.
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Services } from '../context.ts';
import { ClockedRateLimiter } from './clocked-rate-limiter.ts';
import { commonErrors } from '../domain/errors.ts';

/** The window of the cap, in seconds. */
const WINDOW_SECONDS = 60;

/** Counts `count` upload URLs against `organizationId`'s minute; throws 429 `rate_limited` (nothing counted) when they do not fit. */
export async function countUploadUrls(services: Services, organizationId: string, count: number): Promise<void> {
  // A limiter is a few fields over the shared rate_limits table: making one per call costs nothing.
  const limiter = new ClockedRateLimiter({ knex: services.knex, clock: services.clock, keyPrefix: 'upload-urls', points: services.config.rateLimits.uploadUrlsPerMinute, duration: WINDOW_SECONDS });
  try {
    await limiter.consume(organizationId, count);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    // Refused URLs do not count: a smaller prepare may still fit in what is left of the minute.
    await limiter.reward(organizationId, count);
    const retryAfter = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    throw commonErrors.error('rate_limited', `Too many upload URLs for this organization (at most ${limiter.points} a minute); retry in ${retryAfter} s.`, { headers: { 'Retry-After': String(retryAfter) } });
  }
}
