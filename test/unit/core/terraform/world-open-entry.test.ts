import { describe, expect, it } from 'vitest';
import { opensEntryToTheWorld } from '../../../../functions/core/terraform/world-open-entry.js';

/** The verdict on a rule entry edited in place, on the entry shapes of the AWS provider 5.100. */
describe('opensEntryToTheWorld', () => {
  const block = (overrides: Record<string, unknown> = {}) => ({
    cidr_blocks: ['0.0.0.0/0'],
    ipv6_cidr_blocks: [],
    protocol: 'tcp',
    from_port: 443,
    to_port: 443,
    ...overrides,
  });
  const entry = (overrides: Record<string, unknown> = {}) => ({
    action: 'allow',
    cidr_block: '0.0.0.0/0',
    ipv6_cidr_block: '',
    protocol: '6',
    from_port: 443,
    to_port: 443,
    rule_no: 100,
    ...overrides,
  });

  it.each<[string, unknown, unknown, boolean]>([
    ['a block from 10.0.0.0/8 now from 0.0.0.0/0', block({ cidr_blocks: ['10.0.0.0/8'] }), block(), true],
    ['a world-open block moved to another port', block(), block({ from_port: 22, to_port: 22 }), true],
    ['a world-open block widened upwards', block(), block({ to_port: 8443 }), true],
    ['a world-open block to all traffic', block(), block({ protocol: '-1', from_port: 0, to_port: 0 }), true],
    ['a world-open block to another protocol', block(), block({ protocol: 'udp' }), true],
    ['a world-open block narrowed', block({ to_port: 8443 }), block(), false],
    [
      'a world-open all-traffic block narrowed to 443',
      block({ protocol: '-1', from_port: 0, to_port: 0 }),
      block(),
      false,
    ],
    [
      'a private block moved to another port',
      block({ cidr_blocks: ['10.0.0.0/8'] }),
      block({ cidr_blocks: ['10.0.0.0/8'], from_port: 22 }),
      false,
    ],
    ['an ACL allow from 10.0.0.0/8 now from 0.0.0.0/0', entry({ cidr_block: '10.0.0.0/8' }), entry(), true],
    ['an ACL deny from the world turned into an allow', entry({ action: 'deny' }), entry(), true],
    [
      'an ACL deny edited to deny from the world',
      entry({ action: 'deny', cidr_block: '10.0.0.0/8' }),
      entry({ action: 'deny' }),
      false,
    ],
    [
      'an ACL allow from ::/0 added to an entry',
      entry({ cidr_block: '10.0.0.0/8' }),
      entry({ cidr_block: '', ipv6_cidr_block: '::/0' }),
      true,
    ],
    [
      'tcp read back as 6 on a world-open ACL allow',
      entry({ protocol: 'tcp' }),
      entry({ protocol: '6' }),
      false,
    ],
    [
      'an aws_network_acl_rule allow widened',
      { rule_action: 'allow', egress: false, cidr_block: '10.0.0.0/8' },
      { rule_action: 'allow', egress: false, cidr_block: '0.0.0.0/0' },
      true,
    ],
    [
      'an egress aws_network_acl_rule widened',
      { rule_action: 'allow', egress: true, cidr_block: '10.0.0.0/8' },
      { rule_action: 'allow', egress: true, cidr_block: '0.0.0.0/0' },
      false,
    ],
    [
      'an egress aws_security_group_rule to the world widened',
      block({ type: 'egress' }),
      block({ type: 'egress', from_port: 22 }),
      false,
    ],
    ['a whole entry added (no entry before)', null, entry(), false],
    ['not an entry at all', 'a', 'b', false],
  ])('%s', (_name, before, after, expected) => {
    expect(opensEntryToTheWorld(before, after)).toBe(expected);
  });
});
