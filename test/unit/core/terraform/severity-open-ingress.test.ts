import { describe, expect, it } from 'vitest';
import type { Severity } from '../../../../functions/core/findings/model.js';
import { ingressRule, securityGroupValues } from '../../../helpers/plan-builders.js';
import { onlyFindingOf } from '../../../helpers/single-finding.js';

/**
 * An `aws_vpc_security_group_ingress_rule` edited in place (ModifySecurityGroupRules, the console's
 * "Edit inbound rules", keeps the rule id), as a refresh-only plan shows it. Attribute names and
 * shapes follow the AWS provider 5.100.0 schema; for `ip_protocol = "-1"` the provider reads no ports.
 */

type Values = Record<string, unknown>;

function rule(overrides: Values = {}): Values {
  return {
    arn: 'arn:aws:ec2:eu-west-1:111111111111:security-group-rule/sgr-0lb443',
    cidr_ipv4: '0.0.0.0/0',
    cidr_ipv6: null,
    description: 'https from anywhere',
    from_port: 443,
    id: 'sgr-0lb443',
    ip_protocol: 'tcp',
    prefix_list_id: null,
    referenced_security_group_id: null,
    security_group_id: 'sg-0lb',
    security_group_rule_id: 'sgr-0lb443',
    tags: null,
    tags_all: {},
    to_port: 443,
    ...overrides,
  };
}

const severityOf = (before: Values, after: Values): Severity =>
  onlyFindingOf('aws_vpc_security_group_ingress_rule.https', before, after).severity;

describe('a world-open ingress rule edited in place', () => {
  it('443 from 0.0.0.0/0 changed to 22 is critical (SSH opened to the world)', () => {
    expect(severityOf(rule(), rule({ from_port: 22, to_port: 22 }))).toBe('critical');
  });

  it('443 from 0.0.0.0/0 changed to all traffic (-1) is critical', () => {
    expect(severityOf(rule(), rule({ ip_protocol: '-1', from_port: null, to_port: null }))).toBe('critical');
  });

  it('the range widened (to_port 443 → 8443) is critical', () => {
    expect(severityOf(rule(), rule({ to_port: 8443 }))).toBe('critical');
  });

  it('an IPv6 rule from ::/0 gaining udp is critical', () => {
    const v6 = { cidr_ipv4: null, cidr_ipv6: '::/0' };
    expect(severityOf(rule(v6), rule({ ...v6, ip_protocol: 'udp' }))).toBe('critical');
  });

  it('a narrower range, leaving all traffic, or a new description is not escalated', () => {
    expect(severityOf(rule({ from_port: 80 }), rule())).toBe('medium');
    expect(severityOf(rule({ ip_protocol: '-1', from_port: null, to_port: null }), rule())).toBe('medium');
    expect(severityOf(rule(), rule({ description: 'alb https' }))).toBe('medium');
  });

  it('a port change of a rule from a private range, or one closed to a private range, is not escalated', () => {
    expect(
      severityOf(rule({ cidr_ipv4: '10.0.0.0/8' }), rule({ cidr_ipv4: '10.0.0.0/8', from_port: 22 })),
    ).toBe('medium');
    expect(severityOf(rule(), rule({ cidr_ipv4: '10.0.0.0/8', from_port: 22, to_port: 22 }))).toBe('medium');
  });
});

describe('an inline ingress block of aws_security_group edited in place', () => {
  // The block's members that changed are all the refresh shows of it (ingress[0].from_port): the
  // verdict on the block as it now stands decides, not its CIDRs, which did not change.
  const block = (cidr: string, overrides: Values = {}): Values => ({
    ...ingressRule(cidr, 443),
    ...overrides,
  });
  const severityOfGroup = (before: Values, after: Values): Severity => {
    const group = (ingress: Values) => securityGroupValues({ ingress: [ingress] });
    return onlyFindingOf('aws_security_group.lb', group(before), group(after)).severity;
  };

  it.each<[string, Values, Values, Severity]>([
    [
      '443 from 0.0.0.0/0 changed to 22',
      block('0.0.0.0/0'),
      block('0.0.0.0/0', { from_port: 22, to_port: 22 }),
      'critical',
    ],
    [
      '443 from 0.0.0.0/0 changed to all traffic',
      block('0.0.0.0/0'),
      block('0.0.0.0/0', { protocol: '-1', from_port: 0, to_port: 0 }),
      'critical',
    ],
    [
      '443 from ::/0 widened to 443-8443',
      block('', { cidr_blocks: [], ipv6_cidr_blocks: ['::/0'] }),
      block('', { cidr_blocks: [], ipv6_cidr_blocks: ['::/0'], to_port: 8443 }),
      'critical',
    ],
    [
      '443 from 10.0.0.0/16 changed to 22',
      block('10.0.0.0/16'),
      block('10.0.0.0/16', { from_port: 22, to_port: 22 }),
      'medium',
    ],
    [
      '443-8443 from 0.0.0.0/0 narrowed to 443',
      block('0.0.0.0/0', { to_port: 8443 }),
      block('0.0.0.0/0'),
      'medium',
    ],
    [
      'a new description on a world-open block',
      block('0.0.0.0/0'),
      block('0.0.0.0/0', { description: 'https' }),
      'medium',
    ],
  ])('%s', (_name, before, after, expected) => {
    expect(severityOfGroup(before, after)).toBe(expected);
  });
});

describe('an aws_security_group_rule edited in place', () => {
  // ModifySecurityGroupRules keeps the rule id: the refresh shows only the ports that changed.
  const groupRule = (values: Values): Values => ({
    cidr_blocks: ['0.0.0.0/0'],
    description: '',
    from_port: 443,
    id: 'sgrule-1234567890',
    ipv6_cidr_blocks: [],
    prefix_list_ids: [],
    protocol: 'tcp',
    security_group_id: 'sg-0lb',
    security_group_rule_id: 'sgr-0lb443',
    self: false,
    source_security_group_id: null,
    to_port: 443,
    type: 'ingress',
    ...values,
  });
  const severityOfRule = (before: Values, after: Values): Severity =>
    onlyFindingOf('aws_security_group_rule.https', before, after).severity;

  it('HTTPS from anywhere turned into SSH is critical; the same on an egress rule or a private one is not', () => {
    const ssh = { from_port: 22, to_port: 22 };
    expect(severityOfRule(groupRule({}), groupRule(ssh))).toBe('critical');
    expect(severityOfRule(groupRule({ type: 'egress' }), groupRule({ type: 'egress', ...ssh }))).toBe(
      'medium',
    );
    const internal = { cidr_blocks: ['10.0.0.0/8'] };
    expect(severityOfRule(groupRule(internal), groupRule({ ...internal, ...ssh }))).toBe('medium');
  });
});
