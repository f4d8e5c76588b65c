/** The interview report: one definition (fields, lists), validation and decision support. */
export * from './definition';
export * from './validation';
export * from './decision';
export * from './completeness';
