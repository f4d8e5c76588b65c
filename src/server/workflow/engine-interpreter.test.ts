/**
 * Sanad's BPMN interpreter on small processes, one construct at a time: the gateway kinds, joins
 * with dead paths, boundary events on tasks and sub-processes, conditional and default flows out
 * of an activity, timers, message catch events, nested sub-processes, service retries, and the
 * deploy refusing what the interpreter does not run. No database: a connection that answers nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Sql } from '../db/transaction';
import { analyse, deploy, type DefinitionInfo } from './definitions';
import type { Advanced, InstanceRecord, StepEvent } from './engine-common';
import { advanceInterpreter } from './engine-interpreter';
import type { TypedVariables } from './variables';

const nobody: Sql = { query: async () => ({ rows: [], rowCount: 0 }) } as unknown as Sql;
const T0 = Date.parse('2027-01-10T08:00:00Z');

function xml(body: string, extra = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="https://sanad.example.org/test">
  <message id="M_go" name="go" />
  <message id="M_stop" name="stop" />
  ${extra}
  <process id="p" isExecutable="true">${body}</process>
</definitions>`;
}

const flow = (id: string, from: string, to: string, condition?: string) =>
  condition
    ? `<sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}"><conditionExpression xsi:type="tFormalExpression">${condition}</conditionExpression></sequenceFlow>`
    : `<sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}" />`;

/** An instance run by the interpreter alone, with its waiting activities and history at hand. */
class Instance {
  now = T0;
  last!: Advanced;
  record: InstanceRecord;
  readonly started: string[] = [];
  private failing = new Set<string>();

  constructor(
    readonly def: DefinitionInfo,
    variables: TypedVariables = {},
  ) {
    this.record = { id: 'i', caseId: 'c', businessKey: null, variables, engineState: null, step: 0, openTasks: [], jobs: [] };
  }

  failNext(activityId: string): void {
    this.failing.add(activityId);
  }

  async step(event: StepEvent): Promise<Advanced> {
    const settings = {
      sql: nobody,
      clock: { now: () => new Date(this.now) },
      maxAttempts: 3,
      retryBaseMs: 1000,
      handlers: {
        work: async ({ activityId }: { activityId: string }) => {
          if (this.failing.delete(activityId)) throw new Error('down');
          return { [`${activityId}Done`]: true };
        },
      },
    };
    this.last = await advanceInterpreter(settings, this.def, this.record, event);
    for (const entry of this.last.history.values()) if (entry.start) this.started.push(entry.activityId);
    const timers = this.last.timers.map((t) => ({ executionId: t.executionId, kind: 'timer' as const, attempts: 0 }));
    const retries = [...this.last.jobs].filter(([, j]) => j.kind === 'retry').map(([executionId, j]) => ({ executionId, kind: 'retry' as const, attempts: j.attempts }));
    this.record = {
      ...this.record,
      variables: this.last.variables,
      engineState: this.last.engineState === null ? null : JSON.parse(this.last.engineState),
      jobs: [...timers, ...retries],
    };
    return this.last;
  }

  start() {
    return this.step({ kind: 'start' });
  }

  waiting(): string[] {
    return this.last.waiting.map((w) => w.id).sort();
  }

  execution(activityId: string): string {
    const found = this.last.waiting.find((w) => w.id === activityId);
    if (!found) throw new Error(`${activityId} does not wait; waiting: ${this.waiting().join(', ')}`);
    return found.executionId;
  }

  complete(activityId: string, variables: TypedVariables = {}) {
    return this.step({ kind: 'completeTask', executionId: this.execution(activityId), variables, userId: null });
  }

  message(name: string, variables: TypedVariables = {}) {
    return this.step({ kind: 'message', messageName: name, variables });
  }

  timer(activityId: string) {
    const timer = this.last.timers.find((t) => t.activityId === activityId);
    if (!timer) throw new Error(`no timer ${activityId}`);
    return this.step({ kind: 'timer', executionId: timer.executionId });
  }
}

const bool = (value: boolean) => ({ value, type: 'Boolean' as const });
const str = (value: string) => ({ value, type: 'String' as const });

describe('gateways', () => {
  const exclusive = xml(`
    <startEvent id="s" /><exclusiveGateway id="g" default="f_c" />
    <userTask id="a" /><userTask id="b" /><userTask id="c" />
    ${flow('f_s', 's', 'g')}${flow('f_a', 'g', 'a', '${x == 1}')}${flow('f_b', 'g', 'b', '${x >= 1}')}${flow('f_c', 'g', 'c')}`);

  it('an exclusive gateway takes the first flow that holds, else its default', async () => {
    const def = await analyse('p', 1, exclusive);
    const one = new Instance(def, { x: { value: 1, type: 'Integer' } });
    await one.start();
    expect(one.waiting()).toEqual(['a']);
    const two = new Instance(def, { x: { value: 2, type: 'Integer' } });
    await two.start();
    expect(two.waiting()).toEqual(['b']);
    const none = new Instance(def, { x: { value: 0, type: 'Integer' } });
    await none.start();
    expect(none.waiting()).toEqual(['c']);
  });

  it('an exclusive gateway with no flow that holds and no default fails the step', async () => {
    const def = await analyse('p', 1, xml(`<startEvent id="s" /><exclusiveGateway id="g" /><userTask id="a" />${flow('f_s', 's', 'g')}${flow('f_a', 'g', 'a', '${x == 1}')}`));
    await expect(new Instance(def).start()).rejects.toThrow(/exclusive gateway "g"/);
  });

  const inclusive = xml(`
    <startEvent id="s" /><inclusiveGateway id="split" default="f_c" />
    <userTask id="a" /><userTask id="b" /><userTask id="c" />
    <inclusiveGateway id="join" /><userTask id="after" />
    ${flow('f_s', 's', 'split')}${flow('f_a', 'split', 'a', '${wantA}')}${flow('f_b', 'split', 'b', '${wantB}')}${flow('f_c', 'split', 'c')}
    ${flow('f_aj', 'a', 'join')}${flow('f_bj', 'b', 'join')}${flow('f_cj', 'c', 'join')}${flow('f_after', 'join', 'after')}`);

  it('an inclusive split takes every flow that holds; its OR-join waits for the taken paths and fires once', async () => {
    const def = await analyse('p', 1, inclusive);
    const both = new Instance(def, { wantA: bool(true), wantB: bool(true) });
    await both.start();
    expect(both.waiting()).toEqual(['a', 'b']);
    await both.complete('a');
    expect(both.waiting()).toEqual(['b']);
    await both.complete('b');
    expect(both.waiting()).toEqual(['after']);
    expect(both.started.filter((id) => id === 'after')).toHaveLength(1);
  });

  it('an OR-join does not wait for a path that was not taken (dead path), and the default runs when nothing holds', async () => {
    const def = await analyse('p', 1, inclusive);
    const onlyB = new Instance(def, { wantA: bool(false), wantB: bool(true) });
    await onlyB.start();
    expect(onlyB.waiting()).toEqual(['b']);
    await onlyB.complete('b');
    expect(onlyB.waiting()).toEqual(['after']);
    const none = new Instance(def, { wantA: bool(false), wantB: bool(false) });
    await none.start();
    expect(none.waiting()).toEqual(['c']);
    await none.complete('c');
    expect(none.waiting()).toEqual(['after']);
  });

  it('a parallel split starts every path and its join waits for all of them', async () => {
    const def = await analyse(
      'p',
      1,
      xml(`<startEvent id="s" /><parallelGateway id="fork" /><userTask id="a" /><userTask id="b" /><parallelGateway id="join" /><userTask id="after" /><endEvent id="e" />
      ${flow('f_s', 's', 'fork')}${flow('f_a', 'fork', 'a', '${false}')}${flow('f_b', 'fork', 'b')}${flow('f_aj', 'a', 'join')}${flow('f_bj', 'b', 'join')}${flow('f_after', 'join', 'after')}${flow('f_e', 'after', 'e')}`),
    );
    const instance = new Instance(def);
    await instance.start();
    // Conditions on a parallel gateway's flows do not count.
    expect(instance.waiting()).toEqual(['a', 'b']);
    await instance.complete('b');
    expect(instance.waiting()).toEqual(['a']);
    await instance.complete('a');
    expect(instance.waiting()).toEqual(['after']);
    await instance.complete('after');
    expect(instance.last.completed).toBe(true);
    expect(instance.last.engineState).toBeNull();
  });
});

describe('boundary events', () => {
  const onTask = xml(`
    <startEvent id="s" /><userTask id="task" />
    <boundaryEvent id="stopped" attachedToRef="task"><messageEventDefinition messageRef="M_stop" /></boundaryEvent>
    <boundaryEvent id="overdue" attachedToRef="task" cancelActivity="false"><timerEventDefinition><timeDuration xsi:type="tFormalExpression">\${due}</timeDuration></timerEventDefinition></boundaryEvent>
    <userTask id="remind" /><inclusiveGateway id="merge" /><userTask id="after" />
    ${flow('f_s', 's', 'task')}${flow('f_t', 'task', 'merge')}${flow('f_stop', 'stopped', 'merge')}${flow('f_over', 'overdue', 'remind')}${flow('f_m', 'merge', 'after')}`);

  it('a non-interrupting timer fires once and leaves the task waiting; an interrupting message ends the task and its timers', async () => {
    const def = await analyse('p', 1, onTask);
    const instance = new Instance(def, { due: str('P3D') });
    await instance.start();
    expect(instance.waiting()).toEqual(['overdue', 'stopped', 'task']);
    expect(instance.last.timers.map((t) => [t.activityId, t.expireAt])).toEqual([['overdue', '2027-01-13T08:00:00.000Z']]);
    instance.now += 3 * 86_400_000;
    await instance.timer('overdue');
    expect(instance.waiting()).toEqual(['remind', 'stopped', 'task']);
    expect(instance.last.timers).toEqual([]);
    await instance.message('stop');
    // The merge after the interrupted task does not wait for its dead path.
    expect(instance.waiting()).toEqual(['after', 'remind']);
  });

  it('a task that completes ends its boundary events, and the merge does not wait for them', async () => {
    const def = await analyse('p', 1, onTask);
    const instance = new Instance(def, { due: str('P3D') });
    await instance.start();
    await instance.complete('task');
    expect(instance.waiting()).toEqual(['after']);
    expect(instance.last.timers).toEqual([]);
    expect((await instance.message('stop')).matched).toBe(false);
  });

  const onSubProcess = xml(`
    <startEvent id="s" />
    <subProcess id="phase">
      <startEvent id="ps" /><parallelGateway id="fork" /><userTask id="inner1" /><userTask id="inner2" />
      <boundaryEvent id="innerTimer" attachedToRef="inner1" cancelActivity="false"><timerEventDefinition><timeDuration xsi:type="tFormalExpression">P1D</timeDuration></timerEventDefinition></boundaryEvent>
      <endEvent id="pe1" /><endEvent id="pe2" /><endEvent id="pe3" />
      ${flow('f_ps', 'ps', 'fork')}${flow('f_f1', 'fork', 'inner1')}${flow('f_f2', 'fork', 'inner2')}${flow('f_i1', 'inner1', 'pe1')}${flow('f_i2', 'inner2', 'pe2')}${flow('f_it', 'innerTimer', 'pe3')}
    </subProcess>
    <boundaryEvent id="cancelled" attachedToRef="phase"><messageEventDefinition messageRef="M_stop" /></boundaryEvent>
    <boundaryEvent id="nudge" attachedToRef="phase" cancelActivity="false"><messageEventDefinition messageRef="M_go" /></boundaryEvent>
    <userTask id="afterPhase" /><userTask id="afterCancel" /><userTask id="nudged" />
    ${flow('f_s', 's', 'phase')}${flow('f_p', 'phase', 'afterPhase')}${flow('f_c', 'cancelled', 'afterCancel')}${flow('f_n', 'nudge', 'nudged')}`);

  it('an interrupting boundary event on a sub-process ends everything inside it; a non-interrupting one leaves it running', async () => {
    const def = await analyse('p', 1, onSubProcess);
    const instance = new Instance(def);
    await instance.start();
    expect(instance.waiting()).toEqual(['cancelled', 'inner1', 'inner2', 'innerTimer', 'nudge', 'phase']);
    await instance.message('go');
    expect(instance.waiting()).toEqual(['cancelled', 'inner1', 'inner2', 'innerTimer', 'nudged', 'phase']);
    await instance.message('stop');
    expect(instance.waiting()).toEqual(['afterCancel', 'nudged']);
    expect(instance.last.timers).toEqual([]);
    // Every execution inside the phase got its end in the history.
    const ended = [...instance.last.history.values()].filter((e) => e.end).map((e) => e.activityId).sort();
    expect(ended).toEqual(expect.arrayContaining(['inner1', 'inner2', 'innerTimer', 'phase', 'cancelled']));
  });

  it('a sub-process ends when nothing inside it is live, and its boundary events end with it', async () => {
    const def = await analyse('p', 1, onSubProcess);
    const instance = new Instance(def);
    await instance.start();
    await instance.complete('inner1');
    expect(instance.waiting()).toEqual(['cancelled', 'inner2', 'nudge', 'phase']);
    await instance.complete('inner2');
    expect(instance.waiting()).toEqual(['afterPhase']);
  });
});

describe('flows out of activities, timers, messages, nesting', () => {
  it('a sub-process leaves by a conditional flow that holds, otherwise by its default flow', async () => {
    const def = await analyse(
      'p',
      1,
      xml(`<startEvent id="s" />
      <subProcess id="phase" default="f_next"><startEvent id="ps" /><userTask id="work" /><endEvent id="pe" />${flow('f1', 'ps', 'work')}${flow('f2', 'work', 'pe')}</subProcess>
      <endEvent id="early" /><userTask id="next" />
      ${flow('f_s', 's', 'phase')}${flow('f_early', 'phase', 'early', '${stop == true}')}${flow('f_next', 'phase', 'next')}`),
    );
    const early = new Instance(def);
    await early.start();
    await early.complete('work', { stop: bool(true) });
    expect(early.last.completed).toBe(true);
    const onward = new Instance(def);
    await onward.start();
    await onward.complete('work', { stop: bool(false) });
    expect(onward.waiting()).toEqual(['next']);
  });

  it('timers: a duration from an expression and a date; a timer catch event waits until its job fires', async () => {
    const def = await analyse(
      'p',
      1,
      xml(`<startEvent id="s" /><parallelGateway id="fork" />
      <intermediateCatchEvent id="wait"><timerEventDefinition><timeDuration xsi:type="tFormalExpression">\${after}</timeDuration></timerEventDefinition></intermediateCatchEvent>
      <intermediateCatchEvent id="until"><timerEventDefinition><timeDate xsi:type="tFormalExpression">\${when}</timeDate></timerEventDefinition></intermediateCatchEvent>
      <userTask id="a" /><userTask id="b" />
      ${flow('f_s', 's', 'fork')}${flow('f1', 'fork', 'wait')}${flow('f2', 'fork', 'until')}${flow('f3', 'wait', 'a')}${flow('f4', 'until', 'b')}`),
    );
    const instance = new Instance(def, { after: str('PT2H'), when: { value: '2027-02-01T00:00:00.000Z', type: 'Date' } });
    await instance.start();
    expect(instance.last.timers.map((t) => [t.activityId, t.expireAt]).sort()).toEqual([
      ['until', '2027-02-01T00:00:00.000Z'],
      ['wait', '2027-01-10T10:00:00.000Z'],
    ]);
    expect((await instance.step({ kind: 'timer', executionId: 'wait_000000000000' })).matched).toBe(false);
    await instance.timer('wait');
    expect(instance.waiting()).toEqual(['a', 'until']);
  });

  it('a timer whose expression gives no duration fails the step with the timer named', async () => {
    const def = await analyse(
      'p',
      1,
      xml(`<startEvent id="s" /><intermediateCatchEvent id="wait"><timerEventDefinition><timeDuration xsi:type="tFormalExpression">\${missing}</timeDuration></timerEventDefinition></intermediateCatchEvent>${flow('f', 's', 'wait')}`),
    );
    await expect(new Instance(def).start()).rejects.toThrow(/timer "wait"/);
  });

  it('a message catch event takes the message and its variables; a message nobody waits for matches nothing', async () => {
    const def = await analyse(
      'p',
      1,
      xml(`<startEvent id="s" /><intermediateCatchEvent id="catch"><messageEventDefinition messageRef="M_go" /></intermediateCatchEvent><userTask id="a" />${flow('f1', 's', 'catch')}${flow('f2', 'catch', 'a')}`),
    );
    const instance = new Instance(def);
    await instance.start();
    expect(instance.waiting()).toEqual(['catch']);
    expect((await instance.message('stop')).matched).toBe(false);
    expect(instance.waiting()).toEqual(['catch']);
    const taken = await instance.message('go', { offer: str('o1') });
    expect(taken.matched).toBe(true);
    expect(instance.waiting()).toEqual(['a']);
    expect(instance.record.variables.offer).toEqual(str('o1'));
  });

  it('a nested sub-process that ends ends its parent when nothing else is live there', async () => {
    const def = await analyse(
      'p',
      1,
      xml(`<startEvent id="s" />
      <subProcess id="outer"><startEvent id="os" />
        <subProcess id="inner"><startEvent id="is" /><userTask id="deep" /><endEvent id="ie" />${flow('g1', 'is', 'deep')}${flow('g2', 'deep', 'ie')}</subProcess>
        <endEvent id="oe" />${flow('h1', 'os', 'inner')}${flow('h2', 'inner', 'oe')}</subProcess>
      <userTask id="after" />${flow('f1', 's', 'outer')}${flow('f2', 'outer', 'after')}`),
    );
    const instance = new Instance(def);
    await instance.start();
    expect(instance.waiting()).toEqual(['deep', 'inner', 'outer']);
    await instance.complete('deep');
    expect(instance.waiting()).toEqual(['after']);
    expect(instance.started).toEqual(expect.arrayContaining(['ie', 'oe']));
  });

  it('a failing service task waits for its retry job and goes on when the retry succeeds', async () => {
    const def = await analyse(
      'p',
      1,
      xml(`<startEvent id="s" /><serviceTask id="svc" camunda:type="external" camunda:topic="work" /><userTask id="a" />${flow('f1', 's', 'svc')}${flow('f2', 'svc', 'a')}`),
    );
    const instance = new Instance(def);
    instance.failNext('svc');
    await instance.start();
    expect(instance.waiting()).toEqual(['svc']);
    const executionId = instance.execution('svc');
    expect(instance.last.jobs.get(executionId)).toEqual({ kind: 'retry', attempts: 1 });
    await instance.step({ kind: 'retry', executionId });
    expect(instance.waiting()).toEqual(['a']);
    expect(instance.record.variables.svcDone).toEqual({ value: true, type: 'Boolean' });
  });

  it('a cycle without a wait state fails the step instead of running forever', async () => {
    const def = await analyse(
      'p',
      1,
      xml(`<startEvent id="s" /><exclusiveGateway id="a" /><exclusiveGateway id="b" />${flow('f1', 's', 'a')}${flow('f2', 'a', 'b')}${flow('f3', 'b', 'a')}`),
    );
    await expect(new Instance(def).start()).rejects.toThrow(/without waiting: its model loops/);
  });

  it('execution ids are the activity id and a random part, unique per execution', async () => {
    const def = await analyse('p', 1, xml(`<startEvent id="s" /><userTask id="a" />${flow('f1', 's', 'a')}`));
    const first = new Instance(def);
    await first.start();
    const second = new Instance(def);
    await second.start();
    expect(first.execution('a')).toMatch(/^a_[0-9a-f]{12}$/);
    expect(first.execution('a')).not.toBe(second.execution('a'));
  });
});

describe('deploy', () => {
  it('refuses an element outside the subset, naming it, before it becomes a version', async () => {
    const source = xml(`<startEvent id="s" /><scriptTask id="calc" scriptFormat="javascript"><script>1</script></scriptTask>${flow('f1', 's', 'calc')}`);
    const def = await analyse('p', 1, source);
    expect(def.model.unsupported.join()).toMatch(/bpmn:ScriptTask "calc"/);
    await expect(deploy(nobody, new Map([['p', source]]))).rejects.toThrow(/p\.bpmn uses what Sanad's workflow engine does not run: bpmn:ScriptTask "calc"/);
  });

  it('refuses unsupported event definitions and timer cycles', async () => {
    const source = xml(
      `<startEvent id="s" /><userTask id="a" />
      <boundaryEvent id="err" attachedToRef="a"><errorEventDefinition /></boundaryEvent>
      <intermediateCatchEvent id="cycle"><timerEventDefinition><timeCycle xsi:type="tFormalExpression">R3/PT1H</timeCycle></timerEventDefinition></intermediateCatchEvent>
      <endEvent id="e"><terminateEventDefinition /></endEvent>
      ${flow('f1', 's', 'a')}${flow('f2', 'a', 'cycle')}${flow('f3', 'cycle', 'e')}`,
    );
    const problems = (await analyse('p', 1, source)).model.unsupported.join('\n');
    expect(problems).toMatch(/"err": bpmn:ErrorEventDefinition is not supported/);
    expect(problems).toMatch(/"cycle": timeCycle timers are not supported/);
    expect(problems).toMatch(/"e": bpmn:TerminateEventDefinition is not supported/);
    await expect(new Instance(await analyse('p', 1, source)).start()).rejects.toThrow(/cannot run/);
  });

  it('accepts the project\'s processes as they are', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const root = path.resolve(import.meta.dirname, '../../..');
    for (const file of ['workflows/trial.bpmn', 'workflows/safety.bpmn', 'workflows/treatment-modules.bpmn', 'test/fixtures/workflow-v1/trial.bpmn']) {
      const key = path.basename(file, '.bpmn');
      expect((await analyse(key, 1, fs.readFileSync(path.join(root, file), 'utf8'))).model.unsupported, file).toEqual([]);
    }
  });
});
