/**
 * The content deltas of an OpenAI-style streamed completion as they are read (`data: {…}` events, `[DONE]` skipped):
 * the benchmark's direct reads and the floor relay parse the upstream alike.
 */
export async function* sseContents(body) {
  let buffer = '';
  for await (const chunk of body) {
    buffer += chunk.toString('utf8');
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = event.startsWith('data: ') ? event.slice(6) : '';
      if (!data || data === '[DONE]') continue;
      const text = JSON.parse(data).choices?.[0]?.delta?.content;
      if (text) yield text;
    }
  }
}
