import { isPlainObject } from './json-values.js';
import type { CompactAttributeChange, PathSegment } from './plan-model.js';

/**
 * Some companion resources manage one element each of a collection of their parent: an
 * `aws_vpc_security_group_ingress_rule` is one rule of its group's `ingress`, an
 * `aws_iam_role_policy_attachment` one ARN of its role's `managed_policy_arns`. The parent lists
 * every element, the ones its companions declare and the ones somebody added by hand, so the parent's
 * change is noise only when every element it adds, removes or edits is one a companion declares.
 * Both sides are described by keys (`ingress|tcp|22-22|0.0.0.0/0`, `arn|arn:aws:iam::…`): what an
 * element is, never what it holds beyond that (descriptions, policy text: a companion's own drift
 * says when those change).
 */

type ElementKeys = (attribute: string, element: unknown) => string[];

/** Parent type → collection attribute → the keys of one of its elements. */
const PARENT_COLLECTIONS: ReadonlyMap<string, ReadonlyMap<string, ElementKeys>> = new Map([
  [
    'aws_security_group',
    new Map([
      ['ingress', securityGroupRuleKeys],
      ['egress', securityGroupRuleKeys],
    ]),
  ],
  [
    'aws_iam_role',
    new Map<string, ElementKeys>([
      ['managed_policy_arns', (_attribute, arn) => (typeof arn === 'string' ? [`arn|${arn}`] : [])],
      [
        'inline_policy',
        (_attribute, policy) => (isPlainObject(policy) ? [`name|${String(policy.name)}`] : []),
      ],
    ]),
  ],
  ['aws_route_table', new Map([['route', routeKeys]])],
  ['aws_lb_target_group', new Map([['load_balancer_arns', loadBalancerKeys]])],
  ['aws_alb_target_group', new Map([['load_balancer_arns', loadBalancerKeys]])],
  [
    'aws_network_acl',
    new Map([
      ['ingress', networkAclRuleKeys],
      ['egress', networkAclRuleKeys],
    ]),
  ],
]);

/** The collection attributes of a parent type whose elements companions can declare one by one. */
export function isCollectionAttribute(parentType: string, attribute: string): boolean {
  return PARENT_COLLECTIONS.get(parentType)?.has(attribute) === true;
}

/**
 * The keys of the elements one change of a parent touches, or undefined when they cannot be told
 * (hashed values): such a change is not explained by any companion. `before` and `after` are the
 * parent's whole values; a change inside an element (`ingress[0].cidr_blocks[1]`, indexed on the
 * before side) touches that element as it was and as it is with the change applied.
 */
export function changedElementKeys(
  parentType: string,
  change: CompactAttributeChange,
  before: unknown,
): string[] | undefined {
  const [attribute, index, ...inside] = change.segments;
  if (typeof attribute !== 'string' || change.sensitive) return undefined;
  const keysOf = PARENT_COLLECTIONS.get(parentType)?.get(attribute);
  if (keysOf === undefined) return undefined;
  const elements = (value: unknown) => (Array.isArray(value) ? value : value === null ? [] : [value]);
  if (index === undefined)
    return [...elements(change.before), ...elements(change.after)].flatMap((item) => keysOf(attribute, item));
  if (inside.length === 0)
    return [change.before, change.after]
      .filter((item) => item !== null)
      .flatMap((item) => keysOf(attribute, item));
  const list = isPlainObject(before) ? before[attribute] : undefined;
  const element = Array.isArray(list) && typeof index === 'number' ? list[index] : undefined;
  if (element === undefined) return undefined;
  return [...keysOf(attribute, element), ...keysOf(attribute, withValueAt(element, inside, change.after))];
}

/**
 * The keys a companion resource declares in its parent's collections (empty for any other type).
 * `values` are the companion's own attributes from the plan.
 */
export function companionElementKeys(type: string, values: Record<string, unknown>): string[] {
  switch (type) {
    case 'aws_vpc_security_group_ingress_rule':
    case 'aws_vpc_security_group_egress_rule': {
      const side = type.endsWith('ingress_rule') ? 'ingress' : 'egress';
      const sources = [
        values.cidr_ipv4,
        values.cidr_ipv6,
        values.prefix_list_id,
        values.referenced_security_group_id,
      ];
      // A rule that references its own group is the group's `self = true`.
      if (values.referenced_security_group_id === values.security_group_id) sources.push(SELF);
      return ruleKeys(side, values.ip_protocol, values.from_port, values.to_port, sources);
    }
    case 'aws_security_group_rule': {
      const side = values.type === 'egress' ? 'egress' : 'ingress';
      const sources = [
        ...listOf(values.cidr_blocks),
        ...listOf(values.ipv6_cidr_blocks),
        ...listOf(values.prefix_list_ids),
        values.source_security_group_id,
        values.self === true ? SELF : undefined,
      ];
      return ruleKeys(side, values.protocol, values.from_port, values.to_port, sources);
    }
    case 'aws_iam_role_policy_attachment':
    case 'aws_iam_policy_attachment':
      return typeof values.policy_arn === 'string' ? [`arn|${values.policy_arn}`] : [];
    case 'aws_iam_role_policy':
      return typeof values.name === 'string' ? [`name|${values.name}`] : [];
    case 'aws_route':
      return destinationKeys([
        values.destination_cidr_block,
        values.destination_ipv6_cidr_block,
        values.destination_prefix_list_id,
      ]);
    case 'aws_network_acl_rule':
      return [`${values.egress === true ? 'egress' : 'ingress'}|${String(values.rule_number)}`];
    case 'aws_lb_listener':
    case 'aws_alb_listener':
      return loadBalancerKeys('load_balancer_arns', values.load_balancer_arn);
    case 'aws_lb_listener_rule':
    case 'aws_alb_listener_rule':
      return loadBalancerKeys('load_balancer_arns', listenerLoadBalancer(values.listener_arn));
    default:
      return [];
  }
}

function loadBalancerKeys(_attribute: string, arn: unknown): string[] {
  return typeof arn === 'string' && arn !== '' ? [`lb|${arn}`] : [];
}

/**
 * A listener's load balancer, from the listener's ARN: `…:listener/app/web/50dc6c495c0c9188/f2f7dc8e`
 * belongs to `…:loadbalancer/app/web/50dc6c495c0c9188` (a listener rule names only its listener).
 */
function listenerLoadBalancer(listenerArn: unknown): string | undefined {
  if (typeof listenerArn !== 'string') return undefined;
  const match = /^(arn:[^:]+:elasticloadbalancing:[^:]*:[^:]*:)listener\/(.+)\/[^/]+$/.exec(listenerArn);
  return match ? `${match[1]}loadbalancer/${match[2]}` : undefined;
}

/** The target groups a listener (default_action) or listener rule (action) forwards to. */
function forwardedTargetGroups(actions: unknown): string[] {
  const arns: string[] = [];
  for (const action of listOf(actions)) {
    if (!isPlainObject(action)) continue;
    if (typeof action.target_group_arn === 'string' && action.target_group_arn !== '')
      arns.push(action.target_group_arn);
    for (const forward of listOf(action.forward)) {
      if (!isPlainObject(forward)) continue;
      for (const group of listOf(forward.target_group))
        if (isPlainObject(group) && typeof group.arn === 'string' && group.arn !== '') arns.push(group.arn);
    }
  }
  return [...new Set(arns)];
}

/**
 * The parents a companion names in a list: the roles of an `aws_iam_policy_attachment`, the target
 * groups a listener or listener rule forwards to.
 */
export function companionParents(type: string, values: Record<string, unknown>): string[] {
  switch (type) {
    case 'aws_iam_policy_attachment':
      return listOf(values.roles).filter((role): role is string => typeof role === 'string' && role !== '');
    case 'aws_lb_listener':
    case 'aws_alb_listener':
      return forwardedTargetGroups(values.default_action);
    case 'aws_lb_listener_rule':
    case 'aws_alb_listener_rule':
      return forwardedTargetGroups(values.action);
    default:
      return [];
  }
}

const SELF = '(self)';

function securityGroupRuleKeys(attribute: string, rule: unknown): string[] {
  if (!isPlainObject(rule)) return [];
  const sources = [
    ...listOf(rule.cidr_blocks),
    ...listOf(rule.ipv6_cidr_blocks),
    ...listOf(rule.prefix_list_ids),
    ...listOf(rule.security_groups),
    rule.self === true ? SELF : undefined,
  ];
  return ruleKeys(attribute, rule.protocol, rule.from_port, rule.to_port, sources);
}

/** Protocol numbers AWS and the provider accept for the names the group lists. */
const PROTOCOL_NAMES: Readonly<Record<string, string>> = {
  '6': 'tcp',
  '17': 'udp',
  '1': 'icmp',
  '58': 'icmpv6',
  all: '-1',
};

/**
 * Two protocol values a rule reads the same: `tcp` and `6`, `all` and `-1`, any case. The network ACL
 * API speaks only numbers, so the provider records `6` for a configured `tcp` at the first refresh.
 */
export function sameProtocol(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const normalise = (value: string) => {
    const name = value.toLowerCase();
    return PROTOCOL_NAMES[name] ?? name;
  };
  return normalise(a) === normalise(b);
}

/** One key per source of a rule: side, protocol, ports (any, for all protocols) and the source. */
function ruleKeys(side: string, protocol: unknown, from: unknown, to: unknown, sources: unknown[]): string[] {
  const name = String(protocol ?? '').toLowerCase();
  const normalised = PROTOCOL_NAMES[name] ?? name;
  const ports = normalised === '-1' ? '*' : `${String(from)}-${String(to)}`;
  return sources
    .filter((source): source is string => typeof source === 'string' && source !== '')
    .map((source) => `${side}|${normalised}|${ports}|${source.replace(/^\d{12}\//, '')}`);
}

function routeKeys(_attribute: string, route: unknown): string[] {
  if (!isPlainObject(route)) return [];
  return destinationKeys([route.cidr_block, route.ipv6_cidr_block, route.destination_prefix_list_id]);
}

function destinationKeys(destinations: unknown[]): string[] {
  return destinations
    .filter((destination): destination is string => typeof destination === 'string' && destination !== '')
    .map((destination) => `route|${destination}`);
}

function networkAclRuleKeys(attribute: string, rule: unknown): string[] {
  return isPlainObject(rule) ? [`${attribute}|${String(rule.rule_no)}`] : [];
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A copy of `value` with `after` at `path` (a list element set to null is removed). */
function withValueAt(value: unknown, path: readonly PathSegment[], after: unknown): unknown {
  if (path.length === 0) return after;
  const [head, ...rest] = path;
  if (Array.isArray(value) && typeof head === 'number') {
    const copy = [...value];
    if (rest.length === 0 && after === null) copy.splice(head, 1);
    else copy[head] = withValueAt(copy[head], rest, after);
    return copy;
  }
  if (isPlainObject(value) && typeof head === 'string')
    return { ...value, [head]: withValueAt(value[head], rest, after) };
  return value;
}
