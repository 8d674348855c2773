import { PlanFormatError } from './plan-error.js';

/** `terraform show -json` format majors this evaluator understands (0.x: Terraform ≤ 0.15). */
const SUPPORTED_MAJORS: ReadonlySet<string> = new Set(['0', '1']);

/** Returns the version string, or throws `unsupported format_version X`. */
export function checkFormatVersion(value: unknown): string {
  if (typeof value !== 'string') {
    const shown = value === undefined ? '(missing)' : JSON.stringify(value);
    throw new PlanFormatError(`unsupported format_version ${shown}`);
  }
  const major = /^(\d+)\.\d+/.exec(value)?.[1];
  if (major === undefined || !SUPPORTED_MAJORS.has(major)) {
    throw new PlanFormatError(`unsupported format_version ${value}`);
  }
  return value;
}
