import * as sns from 'aws-cdk-lib/aws-sns';
import type { Destination, Registry, Team } from '../functions/core/registry/model.js';

/**
 * The SNS filter policy of one owner's destination, over the message attributes NotifyOwners sets
 * (docs/notifications.md): `owner` (String) is the team, and a destination that
 * lists `environments` only takes digests about one of them (`environment` is a String.Array: SNS
 * matches when any element is listed).
 */
export function destinationFilterPolicy(team: Team, destination: Destination): Record<string, string[]> {
  return {
    owner: [team.id],
    ...(destination.environments ? { environment: [...destination.environments] } : {}),
  };
}

/** The same policy as CDK subscription filters (an allowlist per attribute). */
export function subscriptionFilterPolicy(
  team: Team,
  destination: Destination,
): Record<string, sns.SubscriptionFilter> {
  return Object.fromEntries(
    Object.entries(destinationFilterPolicy(team, destination)).map(([name, values]) => [
      name,
      sns.SubscriptionFilter.stringFilter({ allowlist: values }),
    ]),
  );
}

export interface PlannedDestination {
  team: Team;
  destination: Destination;
  /** Stable within a registry: `<team>-<index>`, used as the construct id. */
  id: string;
}

/** Every destination of every team, in registry order. */
export function registryDestinations(registry: Registry): PlannedDestination[] {
  return registry.owners.teams.flatMap((team) =>
    team.destinations.map((destination, index) => ({ team, destination, id: `${team.id}-${index}` })),
  );
}

/** The fallback owner's destinations: where the stack's own alarms go. */
export function fallbackDestinations(registry: Registry): PlannedDestination[] {
  return registryDestinations(registry).filter(({ team }) => team.id === registry.owners.fallback);
}
