import { describe, expect, it } from 'vitest';
import type { Severity } from '../../../../functions/core/findings/model.js';
import { onlyFindingOf } from '../../../helpers/single-finding.js';

/**
 * Encryption changed outside Terraform, as a refresh-only plan shows it. Attribute names and shapes
 * follow the AWS provider 5.100.0 schema (`terraform providers schema -json`; values trimmed to what
 * matters where a type has dozens).
 */

type Values = Record<string, unknown>;

const decisionOf = (address: string, before: Values, after: Values) => onlyFindingOf(address, before, after);
const severityOf = (address: string, before: Values, after: Values): Severity =>
  decisionOf(address, before, after).severity;

describe('encryption: any attribute named for it', () => {
  it('ElastiCache in-transit encryption turned off (transit_encryption_enabled) is high', () => {
    // ModifyReplicationGroup TransitEncryptionEnabled=false (TransitEncryptionMode preferred first).
    const group = (enabled: boolean, mode: string): Values => ({
      arn: 'arn:aws:elasticache:eu-west-1:123456789012:replicationgroup:sessions',
      at_rest_encryption_enabled: 'true',
      engine: 'redis',
      id: 'sessions',
      replication_group_id: 'sessions',
      transit_encryption_enabled: enabled,
      transit_encryption_mode: mode,
    });
    const finding = decisionOf(
      'aws_elasticache_replication_group.sessions',
      group(true, 'required'),
      group(false, ''),
    );
    expect(finding.severity).toBe('high');
    expect(finding.evidence.severityReasons).toContain(
      'encryption: encryption setting changed (at rest or in transit, a listener moved off HTTPS or TLS, a TLS policy replaced, a KMS alias moved to another key): high',
    );
  });

  it('MSK client traffic allowed in plaintext (encryption_info.encryption_in_transit) is high', () => {
    const cluster = (clientBroker: string): Values => ({
      arn: 'arn:aws:kafka:eu-west-1:123456789012:cluster/events/abc',
      cluster_name: 'events',
      encryption_info: [
        {
          encryption_at_rest_kms_key_arn: 'arn:aws:kms:eu-west-1:123456789012:key/k',
          encryption_in_transit: [{ client_broker: clientBroker, in_cluster: true }],
        },
      ],
      id: 'arn:aws:kafka:eu-west-1:123456789012:cluster/events/abc',
    });
    expect(severityOf('aws_msk_cluster.events', cluster('TLS'), cluster('TLS_PLAINTEXT'))).toBe('high');
  });

  it('a status AWS reports about encryption is not a setting changed', () => {
    // aws_dx_connection.port_encryption_status: MACsec link state, computed only.
    const connection = (status: string): Values => ({
      arn: 'arn:aws:directconnect:eu-west-1:123456789012:dxcon/dxcon-abc',
      bandwidth: '10Gbps',
      encryption_mode: 'must_encrypt',
      id: 'dxcon-abc',
      port_encryption_status: status,
    });
    expect(
      severityOf('aws_dx_connection.main', connection('Encryption Up'), connection('Encryption Down')),
    ).toBe('medium');
  });
});

describe('encryption: a load balancer listener moved off HTTPS or TLS', () => {
  // aws_lb_listener of provider 5.100.0 after ModifyListener (values trimmed).
  const listener = (protocol: string, port = 443): Values => ({
    arn: 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:listener/app/web/50dc6c495c0c9188/f2f7dc8efc522ab2',
    certificate_arn:
      protocol === 'HTTPS' || protocol === 'TLS' ? 'arn:aws:acm:eu-west-1:123456789012:certificate/c' : '',
    id: 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:listener/app/web/50dc6c495c0c9188/f2f7dc8efc522ab2',
    load_balancer_arn:
      'arn:aws:elasticloadbalancing:eu-west-1:123456789012:loadbalancer/app/web/50dc6c495c0c9188',
    port,
    protocol,
    ssl_policy: protocol === 'HTTPS' || protocol === 'TLS' ? 'ELBSecurityPolicy-TLS13-1-2-2021-06' : '',
  });

  it.each<[string, string, string, Severity]>([
    ['aws_lb_listener.web', 'HTTPS', 'HTTP', 'high'],
    ['aws_alb_listener.web', 'HTTPS', 'HTTP', 'high'],
    ['aws_lb_listener.nlb', 'TLS', 'TCP', 'high'],
    // Encryption turned on by hand is drift, but nothing was exposed.
    ['aws_lb_listener.web', 'HTTP', 'HTTPS', 'medium'],
  ])('%s %s → %s is %s', (address, before, after, expected) => {
    expect(severityOf(address, listener(before), listener(after))).toBe(expected);
  });

  it('a port change of an HTTPS listener is an ordinary update', () => {
    expect(severityOf('aws_lb_listener.web', listener('HTTPS', 443), listener('HTTPS', 8443))).toBe('medium');
  });

  it('a protocol attribute of another type is not a listener', () => {
    const target = (protocol: string): Values => ({
      arn: 'arn:t',
      id: 'arn:t',
      name: 'web',
      port: 443,
      protocol,
    });
    expect(severityOf('aws_lb_target_group.web', target('HTTPS'), target('HTTP'))).toBe('medium');
  });
});

describe('encryption: a KMS alias moved to another key', () => {
  // UpdateAlias: what encrypts through alias/app now uses the other key.
  const alias = (keyId: string): Values => ({
    arn: 'arn:aws:kms:eu-west-1:123456789012:alias/app',
    id: 'alias/app',
    name: 'alias/app',
    name_prefix: '',
    target_key_arn: `arn:aws:kms:eu-west-1:123456789012:key/${keyId}`,
    target_key_id: keyId,
  });

  it('is high; a new name for the same key is not', () => {
    expect(severityOf('aws_kms_alias.app', alias('11111111-aaaa'), alias('22222222-aaaa'))).toBe('high');
    expect(
      severityOf('aws_kms_alias.app', alias('11111111-aaaa'), {
        ...alias('11111111-aaaa'),
        name_prefix: 'x',
      }),
    ).toBe('medium');
  });
});

describe('encryption: a switch turned on', () => {
  it('is drift at its base severity: the live setting is the safer one', () => {
    const group = (enabled: boolean): Values => ({
      arn: 'arn:aws:elasticache:eu-west-1:123456789012:replicationgroup:sessions',
      id: 'sessions',
      replication_group_id: 'sessions',
      transit_encryption_enabled: enabled,
    });
    expect(severityOf('aws_elasticache_replication_group.sessions', group(false), group(true))).toBe(
      'medium',
    );
    expect(severityOf('aws_elasticache_replication_group.sessions', group(true), group(false))).toBe('high');
  });
});

describe('encryption: TLS policies', () => {
  // Provider 5.100 shapes, trimmed: ModifyListener --ssl-policy, UpdateDomainConfig, UpdateDistribution.
  it.each<[string, string, Values, Values, Severity]>([
    [
      'a listener policy replaced',
      'aws_lb_listener.web',
      { protocol: 'HTTPS', ssl_policy: 'ELBSecurityPolicy-TLS13-1-2-2021-06' },
      { protocol: 'HTTPS', ssl_policy: 'ELBSecurityPolicy-2016-08' },
      'high',
    ],
    [
      'a listener moved to HTTPS (a policy where there was none)',
      'aws_lb_listener.web',
      { protocol: 'HTTP', ssl_policy: '' },
      { protocol: 'HTTPS', ssl_policy: 'ELBSecurityPolicy-TLS13-1-2-2021-06' },
      'medium',
    ],
    [
      'an OpenSearch TLS policy replaced',
      'aws_opensearch_domain.logs',
      {
        domain_endpoint_options: [{ enforce_https: true, tls_security_policy: 'Policy-Min-TLS-1-2-2019-07' }],
      },
      {
        domain_endpoint_options: [{ enforce_https: true, tls_security_policy: 'Policy-Min-TLS-1-0-2019-07' }],
      },
      'high',
    ],
    [
      'a CloudFront minimum protocol lowered',
      'aws_cloudfront_distribution.site',
      { viewer_certificate: [{ minimum_protocol_version: 'TLSv1.2_2021' }] },
      { viewer_certificate: [{ minimum_protocol_version: 'TLSv1' }] },
      'high',
    ],
    [
      'an API Gateway domain on TLS 1.0',
      'aws_api_gateway_domain_name.api',
      { security_policy: 'TLS_1_2' },
      { security_policy: 'TLS_1_0' },
      'high',
    ],
    [
      'a security_policy of another type',
      'aws_other_thing.x',
      { security_policy: 'a' },
      { security_policy: 'b' },
      'medium',
    ],
  ])('%s', (_name, address, before, after, expected) => {
    expect(severityOf(address, { id: 'x', ...before }, { id: 'x', ...after })).toBe(expected);
  });
});
