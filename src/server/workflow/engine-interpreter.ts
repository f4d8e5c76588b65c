/**
 * Sanad's interpreter of the BPMN subset the project's processes use (process-model.ts lists it;
 * deploy refuses anything else). A step reads a small plain-JSON state — the instance's live
 * executions: waiting tasks and catch events, listening boundary events, running sub-processes,
 * joins with the paths that arrived — applies the event, moves tokens until every one waits
 * again, and returns the same plain data as the legacy bpmn-engine runner. Its cost follows what
 * the step does, not how many elements the process holds.
 *
 * Semantics (BPMN 2.0, as the bpmn-engine runner behaved for these processes; the differential
 * test in engine-differential.test.ts holds the two side by side):
 * - a token entering an activity leaves by its outgoing flows: conditional flows whose condition
 *   holds and flows without a condition; the default flow only when no other flow is taken.
 *   Exclusive gateways take the first flow that holds (else the default), inclusive gateways
 *   every flow that holds (else the default), parallel gateways all; a gateway with no flow to
 *   take is an error that fails the step.
 * - parallel and inclusive gateways with several incoming flows are joins: they fire once every
 *   incoming flow either had a token arrive or can no longer get one from any live token of the
 *   scope (dead-path elimination by reachability, process-model.ts `computeReach`).
 * - boundary events listen while their task or sub-process runs; an interrupting one ends it
 *   (and everything inside it), a non-interrupting one fires once and leaves it running. A task
 *   that completes ends its boundary events.
 * - a sub-process completes when nothing inside it is live any more; the process when nothing is.
 * - a message or signal reaches the first waiting catcher in document order (as bpmn-engine
 *   delivered them).
 */
import { randomUUID } from 'node:crypto';
import type { DefinitionInfo } from './definitions';
import { addDuration, isDuration, resolve, toDate, truthy, zoneOf } from './expressions';
import type { FlowNode, ProcessModel, Scope, Flow } from './process-model';
import { plainValues, type TypedVariables } from './variables';
import {
  runService,
  taskAttributes,
  type Advanced,
  type HistoryEntry,
  type InstanceRecord,
  type JobMap,
  type StepEvent,
  type StepSettings,
  type TaskAttributes,
  type WaitingActivity,
  type WaitingTimer,
} from './engine-common';

/** One live execution of the stored state. */
interface Execution {
  /** `<activityId>_<random>`, unique within the instance. */
  id: string;
  activityId: string;
  /** The execution id of the sub-process it runs in; null at the process level. */
  parent: string | null;
  /** A boundary event's host execution. */
  attachedTo?: string;
  /** A timer's due time (ISO). */
  due?: string;
  /** A join's incoming flows that had a token arrive. */
  arrived?: string[];
}

export interface InterpreterState {
  engine: 'sanad';
  version: 1;
  executions: Execution[];
}

/** Whether a stored state is the interpreter's (bpmn-engine's states carry no such marker). */
export function isInterpreterState(state: unknown): state is InterpreterState {
  return typeof state === 'object' && state !== null && (state as { engine?: unknown }).engine === 'sanad';
}

/** More activities than any step of a sane model enters (the trial's longest step enters ~15). */
const MAX_ENTRIES_PER_STEP = 10_000;

interface Pending {
  node: FlowNode;
  parent: string | null;
  flow: string | null;
}

class Step {
  readonly executions = new Map<string, Execution>();
  readonly queue: Pending[] = [];
  readonly history = new Map<string, HistoryEntry>();
  readonly entered = new Map<string, TaskAttributes>();
  readonly completedByMessage = new Set<string>();
  readonly jobs: JobMap;
  readonly variables: TypedVariables;
  private plain: Record<string, unknown> | undefined;
  private entries = 0;

  constructor(
    readonly settings: StepSettings,
    readonly def: DefinitionInfo,
    readonly model: ProcessModel,
    readonly instance: InstanceRecord,
    readonly event: StepEvent,
  ) {
    this.variables = { ...instance.variables };
    this.jobs = new Map(instance.jobs.map((j) => [j.executionId, { kind: j.kind, attempts: j.attempts }]));
    const state = instance.engineState as InterpreterState | null;
    for (const execution of state?.executions ?? []) {
      if (!model.nodes.has(execution.activityId)) {
        throw new Error(`The stored state of process instance ${instance.id} names "${execution.activityId}", which its definition does not hold`);
      }
      // Copies: a step changes its executions (a join's arrivals) and never the record it was given.
      this.executions.set(execution.id, execution.arrived ? { ...execution, arrived: [...execution.arrived] } : { ...execution });
    }
  }

  /** The variables as plain values for expressions; rebuilt only after they changed. */
  scope(): Record<string, unknown> {
    this.plain ??= plainValues(this.variables);
    return this.plain;
  }

  merge(incoming: TypedVariables): void {
    Object.assign(this.variables, incoming);
    this.plain = undefined;
  }

  node(execution: Execution): FlowNode {
    return this.model.nodes.get(execution.activityId)!;
  }

  private scopeOf(parent: string | null): Scope {
    if (parent === null) return this.model.root;
    const execution = this.executions.get(parent);
    if (!execution) throw new Error(`Process instance ${this.instance.id}: the sub-process execution ${parent} is gone`);
    return this.node(execution).scope!;
  }

  private newId(activityId: string): string {
    for (;;) {
      const id = `${activityId}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      if (!this.executions.has(id) && !this.history.has(id)) return id;
    }
  }

  private started(execution: Execution, node: FlowNode): void {
    this.history.set(execution.id, { activityId: node.id, type: node.type, start: this.settings.clock.now() });
  }

  private ended(execution: Execution, node: FlowNode): void {
    const entry = this.history.get(execution.id) ?? { activityId: node.id, type: node.type };
    entry.end ??= this.settings.clock.now();
    this.history.set(execution.id, entry);
  }

  /** A token arrives at a node. */
  private async enter({ node, parent, flow }: Pending): Promise<void> {
    if (node.isJoin) {
      let join = [...this.executions.values()].find((e) => e.activityId === node.id && e.parent === parent);
      if (!join) {
        join = { id: this.newId(node.id), activityId: node.id, parent, arrived: [] };
        this.executions.set(join.id, join);
        this.started(join, node);
      }
      join.arrived!.push(flow!);
      return;
    }
    const execution: Execution = { id: this.newId(node.id), activityId: node.id, parent };
    this.started(execution, node);
    switch (node.type) {
      case 'bpmn:UserTask':
        this.executions.set(execution.id, execution);
        this.attachBoundaries(execution, node);
        this.entered.set(execution.id, taskAttributes(this.def, node.id, this.scope(), this.settings.clock.now()));
        return;
      case 'bpmn:ServiceTask':
      case 'bpmn:SendTask':
        this.executions.set(execution.id, execution);
        this.attachBoundaries(execution, node);
        await this.callService(execution, node);
        return;
      case 'bpmn:IntermediateCatchEvent':
        this.executions.set(execution.id, execution);
        this.arm(execution, node);
        return;
      case 'bpmn:SubProcess':
        this.executions.set(execution.id, execution);
        this.attachBoundaries(execution, node);
        for (const start of node.scope!.starts) this.queue.push({ node: start, parent: execution.id, flow: null });
        return;
      case 'bpmn:StartEvent':
      case 'bpmn:EndEvent':
      case 'bpmn:ExclusiveGateway':
      case 'bpmn:InclusiveGateway':
      case 'bpmn:ParallelGateway':
      case 'bpmn:BoundaryEvent':
        // Start and end events and splitting gateways pass straight through (a boundary event
        // is never entered by a flow: process-model.ts refuses incoming flows on one).
        this.leave(execution, node);
    }
  }

  private attachBoundaries(host: Execution, node: FlowNode): void {
    for (const boundary of node.boundaries) {
      const execution: Execution = { id: this.newId(boundary.id), activityId: boundary.id, parent: host.parent, attachedTo: host.id };
      this.executions.set(execution.id, execution);
      this.started(execution, boundary);
      this.arm(execution, boundary);
    }
  }

  /** Sets a timer's due time when its event starts to wait. */
  private arm(execution: Execution, node: FlowNode): void {
    const trigger = node.trigger;
    if (trigger?.kind !== 'timer') return;
    const now = this.settings.clock.now();
    const scope = this.scope();
    const value = resolve(trigger.expression, scope);
    let due: Date | null = null;
    if (trigger.timerType === 'timeDuration') {
      // In the participant's calendar: P3M from 31 May is 31 August, P1D keeps the local hour.
      if (typeof value === 'string' && isDuration(value.trim())) due = addDuration(now, value.trim(), zoneOf(scope));
    } else if (typeof value !== 'string' || !value.trim().startsWith('P')) {
      due = toDate(value, now, zoneOf(scope));
    }
    if (!due || Number.isNaN(due.getTime())) {
      throw new Error(`The timer "${node.id}" needs ${trigger.timerType === 'timeDuration' ? 'an ISO-8601 duration' : 'a date'}; "${trigger.expression}" gave ${JSON.stringify(value)}`);
    }
    execution.due = due.toISOString();
  }

  private async callService(execution: Execution, node: FlowNode): Promise<void> {
    const result = await runService(this.settings, this.def, this.instance, { activityId: node.id, executionId: execution.id }, this.variables, this.event, this.jobs);
    this.plain = undefined;
    // A failed handler leaves the task waiting for its retry job.
    if (result.kind === 'done') this.leave(execution, node);
  }

  /** An execution completes: its boundary events end, and its token goes on by its flows. */
  leave(execution: Execution, node: FlowNode): void {
    this.ended(execution, node);
    this.executions.delete(execution.id);
    this.detachBoundaries(execution);
    for (const flow of this.outgoing(node)) {
      this.queue.push({ node: this.scopeOf(execution.parent).nodes.get(flow.target)!, parent: execution.parent, flow: flow.id });
    }
  }

  private detachBoundaries(host: Execution): void {
    for (const boundary of [...this.executions.values()]) {
      if (boundary.attachedTo !== host.id) continue;
      this.ended(boundary, this.node(boundary));
      this.executions.delete(boundary.id);
    }
  }

  /** Ends an execution without its outgoing flows (an interrupting boundary event fired), with everything inside it. */
  private interrupt(execution: Execution): void {
    this.ended(execution, this.node(execution));
    this.executions.delete(execution.id);
    this.detachBoundaries(execution);
    for (const child of [...this.executions.values()]) {
      if (child.parent === execution.id && this.executions.has(child.id)) this.interrupt(child);
    }
  }

  /** The flows a token takes out of a node. */
  private outgoing(node: FlowNode): Flow[] {
    if (node.outgoing.length === 0) return [];
    if (node.type === 'bpmn:ParallelGateway') return node.outgoing;
    const holds = (flow: Flow) => !flow.condition || truthy(resolve(flow.condition, this.scope()));
    const fallback = node.outgoing.find((flow) => flow.isDefault);
    if (node.type === 'bpmn:ExclusiveGateway') {
      const taken = node.outgoing.find((flow) => !flow.isDefault && holds(flow)) ?? fallback;
      if (!taken) throw new Error(`No sequence flow out of the exclusive gateway "${node.id}" holds, and it has no default flow`);
      return [taken];
    }
    const taken = node.outgoing.filter((flow) => !flow.isDefault && holds(flow));
    if (taken.length === 0 && fallback) return [fallback];
    if (taken.length === 0 && node.type === 'bpmn:InclusiveGateway') {
      throw new Error(`No sequence flow out of the inclusive gateway "${node.id}" holds, and it has no default flow`);
    }
    return taken;
  }

  /** An event reached a waiting catch event or boundary event. */
  trigger(execution: Execution): void {
    const node = this.node(execution);
    if (node.type !== 'bpmn:BoundaryEvent') {
      this.leave(execution, node);
      return;
    }
    this.ended(execution, node);
    this.executions.delete(execution.id);
    const host = execution.attachedTo ? this.executions.get(execution.attachedTo) : undefined;
    if (node.cancelActivity && host) this.interrupt(host);
    for (const flow of this.outgoing(node)) {
      this.queue.push({ node: this.scopeOf(execution.parent).nodes.get(flow.target)!, parent: execution.parent, flow: flow.id });
    }
  }

  /** Moves tokens until every one waits: queued arrivals, then joins that can fire, then scopes that emptied. */
  async run(): Promise<void> {
    for (;;) {
      while (this.queue.length > 0) {
        // A cycle of flows without a wait state would run forever: fail the step instead.
        if ((this.entries += 1) > MAX_ENTRIES_PER_STEP) {
          throw new Error(`Process instance ${this.instance.id} entered ${MAX_ENTRIES_PER_STEP} activities in one step without waiting: its model loops`);
        }
        const pending = this.queue.shift()!;
        // An arrival inside a sub-process that was interrupted meanwhile is dropped with it.
        if (pending.parent !== null && !this.executions.has(pending.parent)) continue;
        await this.enter(pending);
      }
      if (this.fireJoin() || this.completeScope()) continue;
      return;
    }
  }

  private fireJoin(): boolean {
    for (const join of this.executions.values()) {
      if (!join.arrived) continue;
      const node = this.node(join);
      const missing = node.incoming.filter((flow) => !join.arrived!.includes(flow));
      if (missing.length > 0) {
        const reach = this.scopeOf(join.parent).reach;
        const live = [...this.executions.values()].filter((e) => e.parent === join.parent && e.id !== join.id);
        if (live.some((e) => missing.some((flow) => reach.get(e.activityId)!.has(flow)))) continue;
      }
      this.leave(join, node);
      return true;
    }
    return false;
  }

  private completeScope(): boolean {
    for (const execution of this.executions.values()) {
      const node = this.node(execution);
      if (node.type !== 'bpmn:SubProcess') continue;
      if ([...this.executions.values()].some((e) => e.parent === execution.id)) continue;
      this.leave(execution, node);
      return true;
    }
    return false;
  }

  /** The live executions that wait for a message or signal of this name, in document order. */
  catchers(kind: 'message' | 'signal', name: string): Execution[] {
    return this.sorted().filter((e) => {
      const trigger = this.node(e).trigger;
      return trigger?.kind === kind && trigger.name === name;
    });
  }

  sorted(): Execution[] {
    return [...this.executions.values()].sort((a, b) => this.node(a).order - this.node(b).order);
  }

  /** Applies the event; whether it found what it was meant for. */
  async apply(): Promise<boolean> {
    const event = this.event;
    switch (event.kind) {
      case 'start':
        for (const start of this.model.root.starts) this.queue.push({ node: start, parent: null, flow: null });
        await this.run();
        return true;
      case 'completeTask': {
        const task = this.executions.get(event.executionId);
        if (!task || this.node(task).type !== 'bpmn:UserTask') return false;
        this.merge(event.variables);
        this.leave(task, this.node(task));
        await this.run();
        return true;
      }
      case 'signalExecution': {
        const waiting = this.executions.get(event.executionId);
        const type = waiting && this.node(waiting).type;
        if (!waiting || !type || type === 'bpmn:UserTask' || type === 'bpmn:SubProcess' || waiting.arrived) return false;
        this.merge(event.variables);
        // As under bpmn-engine, a signal moves message and signal events; a timer waits for its
        // job and a service task for its retry (the call is accepted and changes nothing else).
        if (this.node(waiting).trigger && this.node(waiting).trigger?.kind !== 'timer') {
          this.trigger(waiting);
          await this.run();
        }
        return true;
      }
      case 'message':
        return this.applyMessage(event.messageName, event.variables);
      case 'signal': {
        // BPMN 2.0 (10.5.1) and Camunda: a signal is broadcast, so every catcher of the instance
        // that waits when it arrives receives it, in document order (one that an earlier
        // catcher's interruption ended no longer waits).
        const catchers = this.catchers('signal', event.signalName);
        if (catchers.length === 0 || !this.def.signalIds.has(event.signalName)) return false;
        this.merge(event.variables);
        for (const catcher of catchers) if (this.executions.has(catcher.id)) this.trigger(catcher);
        await this.run();
        return true;
      }
      case 'timer': {
        const timer = this.executions.get(event.executionId);
        if (!timer || this.node(timer).trigger?.kind !== 'timer') return false;
        this.trigger(timer);
        await this.run();
        return true;
      }
      case 'retry':
      case 'external': {
        const service = this.executions.get(event.executionId);
        if (service && (this.node(service).type === 'bpmn:ServiceTask' || this.node(service).type === 'bpmn:SendTask')) {
          await this.callService(service, this.node(service));
          await this.run();
        }
        return true;
      }
    }
  }

  /**
   * A message completes the user tasks it is declared to complete (completeOnMessage, matching
   * variables with completeOnMessageMatching) and reaches the first message event that waits for it.
   */
  private async applyMessage(name: string, incoming: TypedVariables): Promise<boolean> {
    const waits = this.catchers('message', name).length > 0 && this.def.messageIds.has(name);
    const tasks = this.sorted().filter((e) => {
      const info = this.node(e).type === 'bpmn:UserTask' ? this.def.userTasks.get(e.activityId) : undefined;
      if (info?.completeOnMessage !== name) return false;
      return (info.completeOnMessageMatching ?? []).every(
        (variable) => this.variables[variable] !== undefined && incoming?.[variable]?.value === this.variables[variable]!.value,
      );
    });
    if (!waits && tasks.length === 0) return false;
    this.merge(incoming);
    for (const task of tasks) {
      if (!this.executions.has(task.id)) continue;
      this.completedByMessage.add(task.id);
      this.leave(task, this.node(task));
    }
    await this.run();
    if (waits) {
      const [catcher] = this.catchers('message', name);
      if (catcher) {
        this.trigger(catcher);
        await this.run();
      }
    }
    return true;
  }

  result(matched: boolean): Advanced {
    const sorted = this.sorted();
    const completed = sorted.length === 0;
    // A join that waits for its other paths is no wait state of its own: nothing can move it.
    const waiting: WaitingActivity[] = sorted.filter((e) => !e.arrived).map((e) => ({ id: e.activityId, type: this.node(e).type, executionId: e.id }));
    const timers: WaitingTimer[] = sorted
      .filter((e) => e.due)
      .map((e) => ({ activityId: e.activityId, executionId: e.id, timerType: 'timeDate', expireAt: e.due, timeDuration: undefined, delay: undefined }));
    const state: InterpreterState = { engine: 'sanad', version: 1, executions: sorted };
    const event = this.event;
    return {
      matched,
      completed,
      engineState: completed ? null : JSON.stringify(state),
      waiting,
      timers,
      jobs: this.jobs,
      variables: this.variables,
      history: this.history,
      entered: this.entered,
      completedExecution: event.kind === 'completeTask' && matched ? event : undefined,
      completedByMessage: this.completedByMessage,
      endTime: this.settings.clock.now(),
    };
  }
}

/** Recovers the instance from its plain state, applies the event, runs until every token waits. */
export async function advanceInterpreter(settings: StepSettings, def: DefinitionInfo, instance: InstanceRecord, event: StepEvent): Promise<Advanced> {
  const model = def.model;
  if (model.unsupported.length > 0) throw new Error(`${def.key}.bpmn cannot run: ${model.unsupported.join('; ')}`);
  const step = new Step(settings, def, model, instance, event);
  const matched = await step.apply();
  return step.result(matched);
}
