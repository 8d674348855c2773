import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { rescanFilter, STATE_MACHINE_ENV, startRescan } from '../../../cli/start-scan.js';

const sfn = mockClient(SFNClient);
afterEach(() => sfn.reset());
const ARN = 'arn:aws:states:eu-west-1:111111111111:stateMachine:ScanStateMachine04DF3AC6-abc';
const now = () => new Date('2026-12-02T09:15:00.123Z');

describe('driftwatch invoke --workspace/--account', () => {
  it('starts the deployed state machine with the filter LoadRegistry honours, under a name that says what it re-scans', async () => {
    sfn.on(StartExecutionCommand).resolves({
      executionArn: `${ARN.replace(':stateMachine:', ':execution:')}:rescan-payments-prod`,
      startDate: new Date('2026-12-02T09:15:01Z'),
    });
    const started = await startRescan({
      filter: rescanFilter({ workspace: 'payments-prod' }),
      env: { [STATE_MACHINE_ENV]: ARN },
      client: new SFNClient({ region: 'eu-west-1' }),
      now,
    });
    const [call] = sfn.commandCalls(StartExecutionCommand);
    expect(call?.args[0].input).toEqual({
      stateMachineArn: ARN,
      name: 'rescan-payments-prod-20261202T091500123Z',
      input: '{"scanId":"rescan-payments-prod-20261202T091500123Z","filter":{"workspace":"payments-prod"}}',
    });
    expect(started).toEqual({
      executionArn: expect.stringContaining(':execution:'),
      startDate: '2026-12-02T09:15:01.000Z',
      filter: { workspace: 'payments-prod' },
    });

    await startRescan({
      filter: rescanFilter({ account: '222222222222' }),
      stateMachineArn: ARN,
      env: {},
      client: new SFNClient({ region: 'eu-west-1' }),
      now,
    });
    expect(sfn.commandCalls(StartExecutionCommand)[1]?.args[0].input).toMatchObject({
      name: 'rescan-account-222222222222-20261202T091500123Z',
      input:
        '{"scanId":"rescan-account-222222222222-20261202T091500123Z","filter":{"account":"222222222222"}}',
    });
  });

  it('refuses bad filters and a missing or malformed state machine before calling AWS, in one line each', async () => {
    expect(() => rescanFilter({})).toThrow('pass --workspace <id> or --account <id>');
    expect(() => rescanFilter({ workspace: 'a', account: '111111111111' })).toThrow('not both');
    expect(() => rescanFilter({ workspace: 'Payments Prod' })).toThrow(/is not a workspace id/);
    expect(() => rescanFilter({ account: '1234' })).toThrow(/12-digit AWS account id/);
    await expect(startRescan({ filter: { workspace: 'w' }, env: {} })).rejects.toThrow(
      `pass --state-machine <arn> or set ${STATE_MACHINE_ENV} (the stack output StateMachineArn)`,
    );
    await expect(
      startRescan({ filter: { workspace: 'w' }, stateMachineArn: 'ScanStateMachine', env: {} }),
    ).rejects.toThrow(/is not a state machine ARN/);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  it('says which state machine could not be started and why', async () => {
    sfn
      .on(StartExecutionCommand)
      .rejects(Object.assign(new Error('User is not authorized'), { name: 'AccessDeniedException' }));
    await expect(
      startRescan({
        filter: { workspace: 'w' },
        stateMachineArn: ARN,
        env: {},
        client: new SFNClient({ region: 'eu-west-1' }),
      }),
    ).rejects.toThrow(`could not start ${ARN}: AccessDeniedException: User is not authorized`);
  });
});

describe('the invoke command', () => {
  it('takes --workspace without a handler and says what it needs; a handler still needs --event', async () => {
    const { runCli } = await import('../../helpers/integration.js');
    const noArn = await runCli(['invoke', '--workspace', 'payments-prod'], {
      env: { [STATE_MACHINE_ENV]: '' },
    });
    expect(noArn.code).toBe(1);
    expect(noArn.stderr.trim()).toBe(
      `driftwatch: pass --state-machine <arn> or set ${STATE_MACHINE_ENV} (the stack output StateMachineArn)`,
    );
    const mixed = await runCli(['invoke', 'load-registry', '--workspace', 'payments-prod']);
    expect(mixed.code).toBe(1);
    expect(mixed.stderr).toContain(
      '--workspace/--account start the deployed scan: pass no handler and no --event',
    );
    const noEvent = await runCli(['invoke', 'load-registry']);
    expect(noEvent.code).toBe(1);
    expect(noEvent.stderr).toContain('pass <handler> --event <file>, or --workspace <id> / --account <id>');
  }, 60_000);
});
