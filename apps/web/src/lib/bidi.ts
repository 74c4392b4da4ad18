/**
 * Styles for a text box whose paragraphs take their direction from their own text, as `dir="auto"` would (Mantine
 * puts a `dir` prop on the input's wrapper, not on the box): an Arabic question reads right to left.
 */
export const OWN_DIRECTION_INPUT = { input: { unicodeBidi: 'plaintext', textAlign: 'start' } } as const;
