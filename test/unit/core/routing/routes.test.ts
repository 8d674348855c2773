import { describe, expect, it } from 'vitest';
import { parseRegistry } from '../../../../functions/core/registry/parse.js';
import { checkRoutes, destinationsFor, routeFinding } from '../../../../functions/core/routing/routes.js';
import { driftDraft } from '../../../helpers/findings.js';

const registry = parseRegistry(`
version: 1
owners:
  fallback: platform
  teams:
    - id: platform
      destinations: [{ type: chatbot-slack, workspace: T01, channel: C01 }]
    - id: payments
      destinations: [{ type: email, address: payments@example.com, environments: [prod] }]
    - id: dba
      destinations: [{ type: sqs, queueArn: "arn:aws:sqs:eu-west-1:111111111111:dba" }]
workspaces:
  - id: payments-prod
    owner: payments
    environment: prod
    source: { dir: a }
    backend: { bucket: tfstate, key: a.tfstate, region: eu-west-1 }
    routes:
      - { address: "module.db.*", owner: dba }
      - { tag: { key: Owner, value: "data-*" }, owner: dba }
  - id: payments-staging
    owner: payments
    environment: staging
    source: { dir: a }
    backend: { bucket: tfstate, key: b.tfstate, region: eu-west-1 }
`);
const prod = registry.workspaces[0]!;

describe('routing', () => {
  it('routes by address glob, then by a resource tag the plan shows, else to the workspace owner', () => {
    const db = routeFinding(
      driftDraft({ resource: { address: 'module.db.aws_db_instance.main', type: 'aws_db_instance' } }),
      prod,
    );
    expect(db.owner).toBe('dba');
    expect(db.evidence.routedBy).toBe('address module.db.*');
    const tagged = routeFinding(driftDraft({ evidence: { tags: { Owner: 'data-platform' } } }), prod);
    expect(tagged.owner).toBe('dba');
    expect(tagged.evidence.routedBy).toBe('tag Owner=data-*');
    expect(routeFinding(driftDraft(), prod).owner).toBe('payments');
  });

  it('honours environment-specific destinations', () => {
    expect(destinationsFor(registry, 'payments', 'prod')).toHaveLength(1);
    expect(destinationsFor(registry, 'payments', 'staging')).toEqual([]);
    expect(destinationsFor(registry, 'dba', 'staging')).toHaveLength(1);
  });

  it('routes --check covers clusters and their application owners', () => {
    const withCluster = parseRegistry(`
version: 1
owners:
  fallback: platform
  teams:
    - { id: platform, destinations: [{ type: email, address: p@example.com }] }
    - { id: shop, destinations: [{ type: email, address: s@example.com, environments: [prod] }] }
clusters:
  - id: stage-eu
    owner: platform
    environment: staging
    argocd: { url: https://argocd.example.com, token: { env: ARGOCD_TOKEN } }
    applications: [{ name: storefront, owner: shop }]
`);
    expect(checkRoutes(withCluster)).toEqual([
      expect.objectContaining({
        scope: 'stage-eu (application storefront)',
        owner: 'shop',
        kinds: ['cluster-drift', 'ownership-conflict', 'scan-failed'],
      }),
    ]);
  });

  it('routes --check finds what reaches no destination', () => {
    expect(checkRoutes(registry)).toEqual([
      expect.objectContaining({
        scope: 'payments-staging',
        owner: 'payments',
        problem: 'payments has no destination for environment staging',
      }),
    ]);
  });
});
