/**
 * Shared shape of the instruments whose item count, response range and scale membership are
 * unverified (INSTRUMENTS.md ⚠️/❓): everything is configuration, and a scale without items
 * stays empty rather than being guessed.
 */
import { sameLabels } from '../labels';
import { endpointScale, itemIds, numberedItems, type ConfiguredScale } from '../scales';
import type { ItemDefinition, Labels, ScoreDefinition } from '../types';

export interface ConfiguredScalesConfig {
  readonly itemCount: number;
  readonly min: number;
  readonly max: number;
  readonly aggregate: 'sum' | 'mean';
  /** Scales by item numbers; arrays are replaced whole by an override, so a trial may add scales. */
  readonly scales: readonly ConfiguredScale[];
}

export function configuredItems(config: ConfiguredScalesConfig, low: Labels, high: Labels, topics: readonly Labels[] = []): ItemDefinition[] {
  return numberedItems(config.itemCount, endpointScale(config.min, config.max, low, high), topics);
}

export function configuredSubscales(config: ConfiguredScalesConfig): ScoreDefinition[] {
  return config.scales.map((scale) => ({
    id: scale.id,
    labels: scale.labels ?? sameLabels(scale.id),
    items: itemIds(scale.items),
    aggregate: config.aggregate,
    reversed: itemIds(scale.reversed ?? []),
  }));
}
