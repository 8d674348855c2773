/** Short finding ids live in the core (digests name findings by them too); the CLI uses the same functions. */
export {
  MIN_PREFIX_LENGTH,
  matchFindingId,
  type PrefixMatch,
  SHORT_ID_LENGTH,
  shortIdLength,
} from '../functions/core/findings/finding-ids.js';
