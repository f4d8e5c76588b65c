// bpmn-moddle ships no types; Sanad uses only fromXML and reads the element tree loosely.
declare module 'bpmn-moddle' {
  export default class BpmnModdle {
    constructor(packages?: Record<string, unknown>);
    fromXML(xml: string): Promise<{ rootElement: any; warnings: unknown[]; elementsById: Record<string, any>; references: unknown[] }>;
  }
}
