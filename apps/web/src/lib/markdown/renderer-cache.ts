import type * as EngineModule from './engine';
import type { MarkdownRenderer, RendererLabels } from './engine';

type Engine = typeof EngineModule;

const renderers = new Map<string, MarkdownRenderer>();

/** One renderer (and so one finished-block cache) per label set, shared by every message on the page. */
export function getRenderer(engine: Engine, labels: RendererLabels): MarkdownRenderer {
  const key = JSON.stringify(labels);
  let renderer = renderers.get(key);
  if (!renderer) {
    renderer = engine.createMarkdownRenderer(labels);
    renderers.set(key, renderer);
  }
  return renderer;
}
