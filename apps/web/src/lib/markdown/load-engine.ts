import type * as EngineModule from './engine';
import { useEffect, useState } from 'react';

type Engine = typeof EngineModule;

let enginePromise: Promise<Engine> | null = null;
let loadedEngine: Engine | null = null;

/** Loads the rendering pipeline once (a separate chunk: markdown-it, KaTeX, highlight.js, DOMPurify). */
export function loadMarkdownEngine(): Promise<Engine> {
  enginePromise ??= import('./engine').then((engine) => {
    loadedEngine = engine;
    return engine;
  });
  return enginePromise;
}

/** The engine once loaded (null until then; the caller shows plain text meanwhile). */
export function useMarkdownEngine(): Engine | null {
  const [engine, setEngine] = useState<Engine | null>(loadedEngine);
  useEffect(() => {
    if (engine) return;
    let active = true;
    loadMarkdownEngine().then(
      (loaded) => {
        if (active) setEngine(loaded);
      },
      () => undefined,
    );
    return () => {
      active = false;
    };
  }, [engine]);
  return engine;
}
