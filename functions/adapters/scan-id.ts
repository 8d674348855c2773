import { randomBytes } from 'node:crypto';
import { newScanId } from '../core/findings/layout.js';

/** A new scan id for a scan starting now-ish: the start time plus a random suffix. */
export function freshScanId(startedAt: Date): string {
  return newScanId(startedAt, randomBytes(3).toString('hex'));
}
