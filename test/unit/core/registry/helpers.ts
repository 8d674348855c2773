import { expect } from 'vitest';
import {
  parseRegistry,
  RegistryError,
  type RegistryProblem,
} from '../../../../functions/core/registry/parse.js';

/** Joins rows into YAML text, one row per line, so a row's index + 1 is its line number. */
export function yaml(...rows: string[]): string {
  return `${rows.join('\n')}\n`;
}

/** Lines 1-6 of most test registries: one team, the fallback. Workspaces start at line 7. */
export const HEADER = [
  'version: 1',
  'owners:',
  '  fallback: platform',
  '  teams:',
  '    - id: platform',
  '      destinations: [{ type: email, address: platform@example.com }]',
];

/** A valid workspace at lines 8-12 after `HEADER` and `workspaces:` (line 7); extra rows start at line 13. */
export const WORKSPACE = [
  '  - id: payments-prod',
  '    owner: platform',
  '    environment: prod',
  '    source: { dir: infra/payments }',
  '    backend: { bucket: tfstate-prod, key: payments/terraform.tfstate, region: eu-west-1 }',
];

export function registryWithWorkspace(...extraRows: string[]): string {
  return yaml(...HEADER, 'workspaces:', ...WORKSPACE, ...extraRows);
}

/** The problems parseRegistry reports; fails the test when it accepts the text. */
export function problemsOf(text: string): RegistryProblem[] {
  try {
    parseRegistry(text);
  } catch (error) {
    expect(error).toBeInstanceOf(RegistryError);
    return (error as RegistryError).problems;
  }
  throw new Error('expected parseRegistry to reject the registry, but it accepted it');
}

export interface ExpectedProblem {
  path: string;
  line: number;
  column?: number;
  /** A fragment of the message. */
  message: string;
}

/** Asserts one problem with this path, line (and column) whose message contains the fragment. */
export function expectProblem(text: string, expected: ExpectedProblem): void {
  const problems = problemsOf(text);
  const match = problems.find((problem) => problem.path === expected.path);
  expect(match, `no problem at ${expected.path}; got ${JSON.stringify(problems, null, 2)}`).toBeDefined();
  expect(match?.line).toBe(expected.line);
  if (expected.column !== undefined) expect(match?.column).toBe(expected.column);
  expect(match?.message).toContain(expected.message);
}

type WorkspaceField = 'id' | 'owner' | 'environment' | 'source' | 'backend';

/**
 * `registryWithWorkspace` with some of the workspace's first five values replaced, keeping every
 * line where it was: id 8, owner 9, environment 10, source 11, backend 12, extra rows from 13.
 */
export function workspaceRegistry(
  fields: Partial<Record<WorkspaceField, string>>,
  ...extraRows: string[]
): string {
  const rows = WORKSPACE.map((row) => {
    const [, indent, key] = /^(\s*(?:- )?)(\w+):/.exec(row) ?? [];
    const replacement = fields[key as WorkspaceField];
    return replacement === undefined ? row : `${indent}${key}: ${replacement}`;
  });
  return yaml(...HEADER, 'workspaces:', ...rows, ...extraRows);
}

/**
 * A registry with one direct-mode cluster `shop`: lines 1-6 HEADER, 7 `workspaces:`, 8-12 WORKSPACE,
 * 13 `clusters:`, 14-18 the cluster up to `kubernetes.context`, the given rows from line 19.
 */
export function directCluster(...kubernetesRows: string[]): string {
  return yaml(
    ...HEADER,
    'workspaces:',
    ...WORKSPACE,
    'clusters:',
    '  - id: shop', // 14
    '    owner: platform', // 15
    '    environment: prod', // 16
    '    kubernetes:', // 17
    '      context: shop', // 18
    ...kubernetesRows, // from 19
  );
}
