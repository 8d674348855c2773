import { describe, expect, it } from 'vitest';
import type { Severity } from '../../../../functions/core/findings/model.js';
import { adviceFor } from '../../../../functions/core/notify/advice.js';
import { storedFinding } from '../../../helpers/findings.js';
import { onlyFindingOf } from '../../../helpers/single-finding.js';

/**
 * A network path toward the internet opened outside Terraform (network-exposure, high), and API
 * methods or routes left without authorization (public-access, critical), as a refresh-only plan
 * shows them. Attribute names and shapes follow the AWS provider 5.100.0 schema (values trimmed).
 */

type Values = Record<string, unknown>;

const findingOf = onlyFindingOf;
const severityOf = (address: string, before: Values | null, after: Values, actions?: string[]): Severity =>
  findingOf(address, before, after, actions).severity;

const NETWORK_EXPOSURE =
  'network-exposure: network opened toward the internet (subnet assigning public IPs, network ACL allowing inbound from 0.0.0.0/0 or ::/0, default route to an internet gateway, EKS API endpoint made public or opened to 0.0.0.0/0): high';

describe('network-exposure: subnets that assign public IPs', () => {
  // ModifySubnetAttribute --map-public-ip-on-launch.
  const subnet = (mapPublicIp: boolean): Values => ({
    arn: 'arn:aws:ec2:eu-west-1:123456789012:subnet/subnet-0abc',
    assign_ipv6_address_on_creation: false,
    availability_zone: 'eu-west-1a',
    cidr_block: '10.20.1.0/24',
    id: 'subnet-0abc',
    map_public_ip_on_launch: mapPublicIp,
    tags: { Name: 'private-a' },
    tags_all: { Name: 'private-a' },
    vpc_id: 'vpc-0abc',
  });

  it('map_public_ip_on_launch false → true is high, with its reason', () => {
    const finding = findingOf('aws_subnet.private_a', subnet(false), subnet(true));
    expect(finding.severity).toBe('high');
    expect(finding.evidence.severityReasons).toContain(NETWORK_EXPOSURE);
    expect(severityOf('aws_default_subnet.a', subnet(false), subnet(true))).toBe('high');
  });

  it('is an exposure: adopt only if approved, and the advice says what opened', () => {
    const finding = findingOf('aws_subnet.private_a', subnet(false), subnet(true));
    expect(finding.remediation.steps.join('\n')).toContain(
      'Adopt only if the exposure is intended and approved',
    );
    const advice = adviceFor(storedFinding({}, finding));
    expect(advice.source).toBe('content:network-exposure');
    expect(advice.text).toContain(
      'a network path toward the internet was opened outside Terraform on aws_subnet.private_a',
    );
  });

  it('turned off, or a public subnet to be created, is not escalated', () => {
    expect(severityOf('aws_subnet.public_a', subnet(true), subnet(false))).toBe('medium');
    expect(severityOf('aws_subnet.public_a', null, subnet(true), ['create'])).toBe('low');
  });
});

describe('network-exposure: network ACLs that allow inbound from the world', () => {
  const rule = (values: Values): Values => ({
    action: 'allow',
    cidr_block: '10.0.0.0/8',
    from_port: 443,
    icmp_code: 0,
    icmp_type: 0,
    ipv6_cidr_block: '',
    protocol: '6',
    rule_no: 100,
    to_port: 443,
    ...values,
  });
  const acl = (ingress: Values[]): Values => ({
    arn: 'arn:aws:ec2:eu-west-1:123456789012:network-acl/acl-0abc',
    egress: [rule({ protocol: '-1', from_port: 0, to_port: 0 })],
    id: 'acl-0abc',
    ingress,
    subnet_ids: ['subnet-0abc'],
    tags: null,
    tags_all: {},
    vpc_id: 'vpc-0abc',
  });
  const everything = rule({ rule_no: 90, cidr_block: '0.0.0.0/0', protocol: '-1', from_port: 0, to_port: 0 });

  it.each<[string, Values[], Severity]>([
    // CreateNetworkAclEntry rule 90 allow all from 0.0.0.0/0, as aws-common-drift makes it against moto.
    ['an allow from 0.0.0.0/0 added', [rule({}), everything], 'high'],
    [
      'an allow from ::/0 added',
      [rule({}), rule({ rule_no: 95, cidr_block: '', ipv6_cidr_block: '::/0' })],
      'high',
    ],
    [
      'a deny from 0.0.0.0/0 added (a guard, not an opening)',
      [rule({}), { ...everything, action: 'deny' }],
      'medium',
    ],
    [
      'an allow from a private range added',
      [rule({}), rule({ rule_no: 110, cidr_block: '192.168.0.0/16' })],
      'medium',
    ],
  ])('%s', (_name, ingress, expected) => {
    expect(severityOf('aws_network_acl.a', acl([rule({})]), acl(ingress))).toBe(expected);
  });

  // ReplaceNetworkAclEntry (the console's "Edit inbound rules"): the entry keeps its rule number and
  // is edited in place, so the refresh shows only the members that changed.
  it.each<[string, Values, Severity]>([
    ['an allow from 10.0.0.0/8 widened to 0.0.0.0/0', { cidr_block: '0.0.0.0/0' }, 'high'],
    ['a deny from 0.0.0.0/0 turned into an allow', { action: 'allow', cidr_block: '0.0.0.0/0' }, 'high'],
    ['a deny edited to deny from 0.0.0.0/0 (a guard)', { action: 'deny', cidr_block: '0.0.0.0/0' }, 'medium'],
    ['an allow from a private range moved to another', { cidr_block: '172.16.0.0/12' }, 'medium'],
  ])('an entry edited in place: %s', (_name, edit, expected) => {
    const before = acl([rule({ action: edit.action === 'allow' ? 'deny' : 'allow' })]);
    expect(severityOf('aws_network_acl.a', before, acl([rule(edit)]))).toBe(expected);
  });

  it('an entry open to the world edited in place: wider is high, narrower or the same protocol by number is not', () => {
    const open = (values: Values) => rule({ cidr_block: '0.0.0.0/0', ...values });
    const edited = (values: Values) => severityOf('aws_network_acl.a', acl([open({})]), acl([open(values)]));
    expect(edited({ from_port: 22, to_port: 443 })).toBe('high');
    expect(edited({ protocol: '-1', from_port: 0, to_port: 0 })).toBe('high');
    expect(edited({ rule_no: 120 })).toBe('medium');
    // tcp read back as 6 is the same protocol (the equivalent-protocol noise rule drops it anyway).
    expect(
      severityOf('aws_network_acl.a', acl([open({ protocol: 'tcp' })]), acl([open({ from_port: 444 })])),
    ).toBe('medium');
  });

  it('the default network ACL: an allow from the world that was already there is not a change', () => {
    // aws_default_network_acl allows everything by design; only its other rules changed here.
    const before = acl([everything, rule({})]);
    const after = acl([everything]);
    expect(severityOf('aws_default_network_acl.main', before, after)).toBe('medium');
    expect(severityOf('aws_default_network_acl.main', acl([rule({})]), acl([rule({}), everything]))).toBe(
      'high',
    );
  });

  it('an egress allow to the world is not escalated', () => {
    const before = acl([rule({})]);
    const after = { ...before, egress: [rule({ protocol: '-1', from_port: 0, to_port: 0 }), everything] };
    expect(severityOf('aws_network_acl.a', before, after)).toBe('medium');
  });

  it('a network ACL to be created with an allow from the world is its pull request’s choice', () => {
    expect(severityOf('aws_network_acl.a', null, acl([everything]), ['create'])).toBe('low');
  });
});

describe('network-exposure: an EKS API endpoint made public', () => {
  const cluster = (publicAccess: boolean, cidrs: string[]): Values => ({
    arn: 'arn:aws:eks:eu-west-1:123456789012:cluster/platform',
    endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com',
    id: 'platform',
    name: 'platform',
    role_arn: 'arn:aws:iam::123456789012:role/eks',
    version: '1.31',
    vpc_config: [
      {
        cluster_security_group_id: 'sg-0abc',
        endpoint_private_access: true,
        endpoint_public_access: publicAccess,
        public_access_cidrs: cidrs,
        security_group_ids: [],
        subnet_ids: ['subnet-0abc', 'subnet-0def'],
        vpc_id: 'vpc-0abc',
      },
    ],
  });

  it.each<[string, Values, Values, Severity]>([
    // UpdateClusterConfig endpointPublicAccess=true: AWS answers 0.0.0.0/0 unless CIDRs are given.
    [
      'endpoint_public_access false → true',
      cluster(false, ['0.0.0.0/0']),
      cluster(true, ['0.0.0.0/0']),
      'high',
    ],
    [
      'public_access_cidrs widened to 0.0.0.0/0',
      cluster(true, ['203.0.113.0/24']),
      cluster(true, ['0.0.0.0/0']),
      'high',
    ],
    [
      'public_access_cidrs narrowed',
      cluster(true, ['0.0.0.0/0']),
      cluster(true, ['203.0.113.0/24']),
      'medium',
    ],
    ['made private', cluster(true, ['0.0.0.0/0']), cluster(false, ['0.0.0.0/0']), 'medium'],
    [
      'made private while the CIDRs read back as 0.0.0.0/0',
      cluster(true, ['203.0.113.0/24']),
      cluster(false, ['0.0.0.0/0']),
      'medium',
    ],
  ])('%s', (_name, before, after, expected) => {
    expect(severityOf('aws_eks_cluster.platform', before, after)).toBe(expected);
  });
});

describe('public-access: an API method or route no longer authorized', () => {
  // UpdateMethod patch /authorizationType NONE (REST), UpdateRoute AuthorizationType NONE (HTTP API).
  const method = (authorization: string): Values => ({
    api_key_required: false,
    authorization,
    authorizer_id: authorization === 'CUSTOM' ? 'abc123' : '',
    http_method: 'GET',
    id: 'agm-a1b2c3-xyz-GET',
    resource_id: 'xyz',
    rest_api_id: 'a1b2c3',
  });
  const route = (authorizationType: string): Values => ({
    api_id: 'a1b2c3',
    api_key_required: false,
    authorization_type: authorizationType,
    authorizer_id: '',
    id: 'r1',
    route_key: 'GET /orders',
    target: 'integrations/i1',
  });

  it.each<[string, Values, Values, Severity]>([
    ['aws_api_gateway_method.get AWS_IAM → NONE', method('AWS_IAM'), method('NONE'), 'critical'],
    ['aws_api_gateway_method.get CUSTOM → NONE', method('CUSTOM'), method('NONE'), 'critical'],
    ['aws_apigatewayv2_route.orders AWS_IAM → NONE', route('AWS_IAM'), route('NONE'), 'critical'],
    ['aws_apigatewayv2_route.orders JWT → NONE', route('JWT'), route('NONE'), 'critical'],
    ['aws_api_gateway_method.get NONE → AWS_IAM', method('NONE'), method('AWS_IAM'), 'medium'],
    ['aws_apigatewayv2_route.orders AWS_IAM → JWT', route('AWS_IAM'), route('JWT'), 'medium'],
  ])('%s', (name, before, after, expected) => {
    expect(severityOf(name.split(' ')[0]!, before, after)).toBe(expected);
  });

  it('a method’s authorization is a setting shown as it is; an authorization header elsewhere stays hashed', () => {
    expect(findingOf('aws_api_gateway_method.get', method('AWS_IAM'), method('NONE')).drift?.changes).toEqual(
      [{ path: 'authorization', before: 'AWS_IAM', after: 'NONE', sensitive: false }],
    );
    // aws_cloudwatch_event_connection: an API key header named authorization, its value a credential.
    const connection = (value: string): Values => ({
      arn: 'arn:aws:events:eu-west-1:123456789012:connection/partner/abc',
      auth_parameters: [{ api_key: [{ key: 'authorization', value }] }],
      authorization_type: 'API_KEY',
      id: 'partner',
      name: 'partner',
    });
    const changes = findingOf('aws_cloudwatch_event_connection.partner', connection('k-1'), connection('k-2'))
      .drift?.changes;
    expect(changes?.every((change) => change.sensitive)).toBe(true);
    expect(JSON.stringify(changes)).not.toContain('k-2');
  });

  it('a public method to be created is its pull request’s choice', () => {
    expect(severityOf('aws_api_gateway_method.get', null, method('NONE'), ['create'])).toBe('low');
  });
});

describe('network-exposure: an aws_network_acl_rule edited in place', () => {
  // ReplaceNetworkAclEntry keeps the rule number: the refresh shows only what changed of the rule.
  const aclRule = (values: Values): Values => ({
    cidr_block: '10.0.0.0/8',
    egress: false,
    from_port: 443,
    icmp_code: null,
    icmp_type: null,
    id: 'nacl-1234567890',
    ipv6_cidr_block: '',
    network_acl_id: 'acl-0abc',
    protocol: '6',
    rule_action: 'allow',
    rule_number: 100,
    to_port: 443,
    ...values,
  });

  it.each<[string, Values, Values, Severity]>([
    ['an inbound allow widened to 0.0.0.0/0', {}, { cidr_block: '0.0.0.0/0' }, 'high'],
    [
      'an inbound deny from 0.0.0.0/0 turned into an allow',
      { cidr_block: '0.0.0.0/0', rule_action: 'deny' },
      { cidr_block: '0.0.0.0/0' },
      'high',
    ],
    [
      'an outbound allow widened to 0.0.0.0/0',
      { egress: true },
      { egress: true, cidr_block: '0.0.0.0/0' },
      'medium',
    ],
    [
      'an inbound deny widened to 0.0.0.0/0',
      { rule_action: 'deny' },
      { rule_action: 'deny', cidr_block: '0.0.0.0/0' },
      'medium',
    ],
  ])('%s', (_name, before, after, expected) => {
    expect(severityOf('aws_network_acl_rule.https_in', aclRule(before), aclRule(after))).toBe(expected);
  });
});

describe('network-exposure: a default route to an internet gateway', () => {
  // CreateRoute 0.0.0.0/0 → igw-… on a private route table: its subnets become public subnets.
  const route = (values: Values): Values => ({
    carrier_gateway_id: '',
    cidr_block: '',
    core_network_arn: '',
    destination_prefix_list_id: '',
    egress_only_gateway_id: '',
    gateway_id: '',
    ipv6_cidr_block: '',
    local_gateway_id: '',
    nat_gateway_id: '',
    network_interface_id: '',
    transit_gateway_id: '',
    vpc_endpoint_id: '',
    vpc_peering_connection_id: '',
    ...values,
  });
  const table = (routes: Values[]): Values => ({
    arn: 'arn:aws:ec2:eu-west-1:123456789012:route-table/rtb-0abc',
    id: 'rtb-0abc',
    owner_id: '123456789012',
    propagating_vgws: [],
    route: routes,
    tags: { Name: 'private' },
    tags_all: { Name: 'private' },
    vpc_id: 'vpc-0abc',
  });
  const peer = route({ cidr_block: '10.99.0.0/16', vpc_peering_connection_id: 'pcx-0abc' });

  it.each<[string, Values[], Values[], Severity]>([
    [
      '0.0.0.0/0 to an internet gateway added',
      [peer],
      [peer, route({ cidr_block: '0.0.0.0/0', gateway_id: 'igw-0abc' })],
      'high',
    ],
    [
      '::/0 to an internet gateway added',
      [peer],
      [peer, route({ ipv6_cidr_block: '::/0', gateway_id: 'igw-0abc' })],
      'high',
    ],
    [
      '0.0.0.0/0 to a NAT gateway added (outbound only)',
      [peer],
      [peer, route({ cidr_block: '0.0.0.0/0', nat_gateway_id: 'nat-0abc' })],
      'medium',
    ],
    [
      'a private range to an internet gateway added',
      [peer],
      [peer, route({ cidr_block: '10.98.0.0/16', gateway_id: 'igw-0abc' })],
      'medium',
    ],
    [
      'the default route moved from a NAT gateway to an internet gateway',
      [route({ cidr_block: '0.0.0.0/0', nat_gateway_id: 'nat-0abc' })],
      [route({ cidr_block: '0.0.0.0/0', gateway_id: 'igw-0abc' })],
      'high',
    ],
  ])('%s', (_name, before, after, expected) => {
    expect(severityOf('aws_route_table.private', table(before), table(after))).toBe(expected);
  });

  it('an aws_route whose default route now goes to an internet gateway is high; one created so is its pull request’s choice', () => {
    const awsRoute = (values: Values): Values => ({
      destination_cidr_block: '0.0.0.0/0',
      gateway_id: '',
      id: 'r-rtb-0abc1080289494',
      nat_gateway_id: 'nat-0abc',
      route_table_id: 'rtb-0abc',
      ...values,
    });
    expect(
      severityOf('aws_route.default', awsRoute({}), awsRoute({ nat_gateway_id: '', gateway_id: 'igw-0abc' })),
    ).toBe('high');
    expect(severityOf('aws_route.default', null, awsRoute({ gateway_id: 'igw-0abc' }), ['create'])).toBe(
      'low',
    );
  });
});
