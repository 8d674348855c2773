import { PlanFormatError, shownToken } from './plan-error.js';

/** `terraform show -json` format majors this evaluator understands (0.x: Terraform ≤ 0.15). */
const SUPPORTED_MAJORS: ReadonlySet<string> = new Set(['0', '1']);

/** The shape of a version: only that is quoted back in an error (the field could hold anything). */
const VERSION = /^\d{1,4}(\.\d{1,4}){0,3}$/;

/** Returns the version string, or throws `unsupported format_version X`. */
export function checkFormatVersion(value: unknown): string {
  if (value === undefined) throw new PlanFormatError('unsupported format_version (missing)');
  if (typeof value !== 'string')
    throw new PlanFormatError(
      `invalid format_version: ${shownToken(value, VERSION)}, expected a string such as "1.2"`,
    );
  const major = /^(\d+)\.\d+/.exec(value)?.[1];
  if (major === undefined || !SUPPORTED_MAJORS.has(major)) {
    throw new PlanFormatError(
      `unsupported format_version ${VERSION.test(value) ? value : shownToken(value, VERSION)}`,
    );
  }
  return value;
}
