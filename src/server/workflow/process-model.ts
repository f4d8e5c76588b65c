/**
 * The executable model of a process for Sanad's interpreter (engine-interpreter.ts), compiled
 * once per definition version from the bpmn-moddle tree: every flow node with its flows, its
 * boundary events and its event definition, grouped by scope (the process and each embedded
 * sub-process), plus what each node can still reach (for joins with dead paths).
 *
 * Only the BPMN subset the project uses is compiled; anything else is listed in `unsupported`
 * with the element named, and deploy refuses such a file, so a model can never half-run.
 */

export type NodeType =
  | 'bpmn:StartEvent'
  | 'bpmn:EndEvent'
  | 'bpmn:UserTask'
  | 'bpmn:ServiceTask'
  | 'bpmn:SendTask'
  | 'bpmn:ExclusiveGateway'
  | 'bpmn:InclusiveGateway'
  | 'bpmn:ParallelGateway'
  | 'bpmn:SubProcess'
  | 'bpmn:BoundaryEvent'
  | 'bpmn:IntermediateCatchEvent';

export type EventTrigger =
  | { kind: 'timer'; timerType: 'timeDuration' | 'timeDate'; expression: string }
  | { kind: 'message'; name: string }
  | { kind: 'signal'; name: string };

export interface Flow {
  id: string;
  target: string;
  /** The condition's expression text (`${…}`), if the flow has one. */
  condition?: string;
  isDefault: boolean;
}

export interface FlowNode {
  id: string;
  type: NodeType;
  /** Position in the document (depth first): messages reach the first waiting catcher in this order. */
  order: number;
  outgoing: Flow[];
  /** Incoming sequence flow ids. */
  incoming: string[];
  /** A parallel or inclusive gateway with several incoming flows waits for its paths. */
  isJoin: boolean;
  boundaries: FlowNode[];
  attachedTo?: string;
  cancelActivity: boolean;
  trigger?: EventTrigger;
  /** The scope a sub-process opens. */
  scope?: Scope;
}

export interface Scope {
  id: string;
  nodes: Map<string, FlowNode>;
  starts: FlowNode[];
  /** node id → the sequence flows a token at that node can still reach (its boundary paths included). */
  reach: Map<string, Set<string>>;
}

export interface ProcessModel {
  root: Scope;
  /** Every node of every scope by id (ids are unique in a BPMN file). */
  nodes: Map<string, FlowNode>;
  /** Elements outside the subset, as messages naming them; empty when the model can run. */
  unsupported: string[];
}

const ACTIVITY_TYPES = new Set<string>([
  'bpmn:StartEvent',
  'bpmn:EndEvent',
  'bpmn:UserTask',
  'bpmn:ServiceTask',
  'bpmn:SendTask',
  'bpmn:ExclusiveGateway',
  'bpmn:InclusiveGateway',
  'bpmn:ParallelGateway',
  'bpmn:SubProcess',
  'bpmn:BoundaryEvent',
  'bpmn:IntermediateCatchEvent',
]);

/** Compiles the flow elements of a process; problems are collected, not thrown. */
export function compileProcess(process: any): ProcessModel {
  const model: ProcessModel = { root: undefined as unknown as Scope, nodes: new Map(), unsupported: [] };
  let order = 0;
  const refuse = (element: any, what: string) => model.unsupported.push(`${element.$type ?? 'element'} "${element.id}": ${what}`);

  const compileScope = (container: any): Scope => {
    const scope: Scope = { id: container.id, nodes: new Map(), starts: [], reach: new Map() };
    const elements = (container.flowElements ?? []) as any[];
    const flows = elements.filter((e) => e.$type === 'bpmn:SequenceFlow');
    for (const element of elements) {
      if (element.$type === 'bpmn:SequenceFlow') continue;
      if (!ACTIVITY_TYPES.has(element.$type)) {
        refuse(element, 'this kind of element is not supported by Sanad\'s workflow engine');
        continue;
      }
      const node: FlowNode = {
        id: element.id,
        type: element.$type as NodeType,
        order: order++,
        outgoing: [],
        incoming: [],
        isJoin: false,
        boundaries: [],
        cancelActivity: element.cancelActivity !== false,
      };
      checkElement(element, node, refuse);
      if (element.$type === 'bpmn:SubProcess') node.scope = compileScope(element);
      scope.nodes.set(node.id, node);
      model.nodes.set(node.id, node);
    }
    for (const flow of flows) {
      const source = scope.nodes.get(flow.sourceRef?.id);
      const target = scope.nodes.get(flow.targetRef?.id);
      if (!source || !target) {
        refuse(flow, 'its source and target must be supported elements of the same scope');
        continue;
      }
      const condition = flow.conditionExpression;
      if (condition && (condition.language || typeof condition.body !== 'string')) {
        refuse(flow, 'a condition must be an expression (${…}), not a script');
      }
      const container = elements.find((e) => e.id === source.id);
      source.outgoing.push({
        id: flow.id,
        target: target.id,
        ...(condition?.body ? { condition: String(condition.body).trim() } : {}),
        isDefault: container?.default?.id === flow.id,
      });
      target.incoming.push(flow.id);
    }
    for (const node of scope.nodes.values()) {
      const element = elements.find((e) => e.id === node.id);
      if (node.type === 'bpmn:BoundaryEvent') {
        const host = scope.nodes.get(element.attachedToRef?.id);
        if (!host || !isAttachable(host)) refuse(element, 'a boundary event must be attached to a task or sub-process of its scope');
        else {
          node.attachedTo = host.id;
          host.boundaries.push(node);
        }
        if (node.incoming.length > 0) refuse(element, 'a boundary event cannot have incoming sequence flows');
      } else if (node.type === 'bpmn:StartEvent') {
        if (node.incoming.length > 0) refuse(element, 'a start event cannot have incoming sequence flows');
        scope.starts.push(node);
      } else if (node.incoming.length === 0) {
        refuse(element, 'it has no incoming sequence flow (only start and boundary events begin a path)');
      }
      if ((node.type === 'bpmn:ParallelGateway' || node.type === 'bpmn:InclusiveGateway') && node.incoming.length > 1) node.isJoin = true;
      if (node.type === 'bpmn:EndEvent' && node.outgoing.length > 0) refuse(element, 'an end event cannot have outgoing sequence flows');
    }
    if (scope.starts.length === 0 && scope.nodes.size > 0) refuse(container, 'it needs a start event');
    computeReach(scope);
    return scope;
  };

  model.root = compileScope(process);
  return model;
}

function isAttachable(node: FlowNode): boolean {
  return node.type === 'bpmn:UserTask' || node.type === 'bpmn:ServiceTask' || node.type === 'bpmn:SendTask' || node.type === 'bpmn:SubProcess';
}

/** Checks an element's attributes against the subset and reads its event definition. */
function checkElement(element: any, node: FlowNode, refuse: (element: any, what: string) => void): void {
  if (element.loopCharacteristics) refuse(element, 'loops and multi-instance activities are not supported');
  if (element.$type === 'bpmn:SubProcess' && element.triggeredByEvent) refuse(element, 'event sub-processes are not supported');
  if (element.$type === 'bpmn:ExclusiveGateway' || element.$type === 'bpmn:InclusiveGateway' || element.$type === 'bpmn:ParallelGateway') {
    if (element.$type === 'bpmn:ParallelGateway' && element.default) refuse(element, 'a parallel gateway has no default flow');
  }
  const definitions = (element.eventDefinitions ?? []) as any[];
  const catches = element.$type === 'bpmn:BoundaryEvent' || element.$type === 'bpmn:IntermediateCatchEvent';
  if (!catches) {
    if (definitions.length > 0) refuse(element, `${definitions[0].$type} is not supported on a ${element.$type}`);
    return;
  }
  if (definitions.length !== 1) {
    refuse(element, 'it needs exactly one timer, message or signal event definition');
    return;
  }
  const definition = definitions[0];
  switch (definition.$type) {
    case 'bpmn:TimerEventDefinition': {
      if (definition.timeCycle) refuse(element, 'timeCycle timers are not supported (use timeDuration or timeDate)');
      const timerType = definition.timeDuration ? 'timeDuration' : definition.timeDate ? 'timeDate' : undefined;
      const body = timerType ? definition[timerType]?.body : undefined;
      if (!timerType || typeof body !== 'string' || body.trim() === '') refuse(element, 'a timer needs a timeDuration or timeDate');
      else node.trigger = { kind: 'timer', timerType, expression: body.trim() };
      break;
    }
    case 'bpmn:MessageEventDefinition':
      if (!definition.messageRef?.name) refuse(element, 'a message event needs a message with a name');
      else node.trigger = { kind: 'message', name: String(definition.messageRef.name) };
      break;
    case 'bpmn:SignalEventDefinition':
      if (!definition.signalRef?.name) refuse(element, 'a signal event needs a signal with a name');
      else node.trigger = { kind: 'signal', name: String(definition.signalRef.name) };
      break;
    default:
      refuse(element, `${definition.$type} is not supported`);
  }
}

/**
 * What each node can reach within its scope: its outgoing flows, what their targets reach, and
 * the paths of its boundary events. A join fires once no live token can reach one of its
 * incoming flows that is still missing (dead-path elimination without passing "discarded"
 * messages around): paths not taken, tasks interrupted by a boundary event, and boundary events
 * of a task that completed all end their tokens, and so stop counting.
 */
function computeReach(scope: Scope): void {
  const visit = (node: FlowNode, into: Set<string>, seen: Set<string>) => {
    if (seen.has(node.id)) return;
    seen.add(node.id);
    for (const flow of node.outgoing) {
      into.add(flow.id);
      visit(scope.nodes.get(flow.target)!, into, seen);
    }
    for (const boundary of node.boundaries) visit(boundary, into, seen);
  };
  for (const node of scope.nodes.values()) {
    const reach = new Set<string>();
    visit(node, reach, new Set());
    scope.reach.set(node.id, reach);
  }
}
