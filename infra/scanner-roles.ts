import type { HandlerName } from './constructs/driftwatch-function.js';

/**
 * The functions that read the estate. Their roles have fixed names so the target-account role can
 * trust them by ARN pattern (`aws:PrincipalArn`) without the two stacks sharing a deploy.
 */
export const SCANNER_HANDLERS = [
  'scan-terraform',
  'scan-cluster',
  'check-backend',
  'observe-locks',
  'confirm-locks',
] as const satisfies readonly HandlerName[];
export type ScannerHandler = (typeof SCANNER_HANDLERS)[number];

export const DEFAULT_STACK_NAME = 'Driftwatch';

/** `<stack>-scanner-<handler>`; IAM role names stop at 64 characters. */
export function scannerRoleName(stackName: string, handler: ScannerHandler): string {
  const name = `${stackName}-scanner-${handler}`;
  if (name.length > 64) throw new Error(`stack name ${stackName} is too long for the scanner role ${name}`);
  return name;
}
