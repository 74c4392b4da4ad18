import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { HighlightedSnippet } from './highlighted-snippet';

afterEach(cleanup);

const marks = (container: HTMLElement) => [...container.querySelectorAll('mark')].map((m) => m.textContent);

describe('HighlightedSnippet', () => {
  it('marks each range and keeps the text around it', () => {
    const { container } = render(
      <HighlightedSnippet
        text="…去巴黎还是留在巴黎？"
        ranges={[
          [2, 4],
          [8, 10],
        ]}
      />,
    );
    expect(marks(container)).toEqual(['巴黎', '巴黎']);
    expect(container.textContent).toBe('…去巴黎还是留在巴黎？');
  });

  it('renders markup in the text as text, never as elements', () => {
    const text = '<img src=x onerror=alert(1)> and <b>bold</b>';
    const { container } = render(<HighlightedSnippet text={text} ranges={[[33, 36]]} />);
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(container.textContent).toBe(text);
    expect(marks(container)).toEqual(['<b>']);
  });

  it('skips ranges that are out of bounds, empty, reversed or overlapping, in any order', () => {
    const { container } = render(
      <HighlightedSnippet
        text="hello world"
        ranges={[
          [6, 11],
          [0, 5],
          [3, 7],
          [4, 4],
          [9, 2],
          [8, 40],
        ]}
      />,
    );
    expect(marks(container)).toEqual(['hello', 'world']);
    expect(container.textContent).toBe('hello world');
  });
});
