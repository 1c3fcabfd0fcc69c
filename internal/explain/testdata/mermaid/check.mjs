// Reads {"charts": [...], "markdown": [...]} on stdin: Mermaid gantt charts
// and Markdown documents. Writes what Mermaid makes of each chart (the
// tasks as its parser reads them, start and end in milliseconds, and the
// title and section names as its renderer draws them), and what marked, a
// CommonMark and GitHub Flavored Markdown parser, makes of each document
// (the text of its headings, block quotes, list items and shutdown table
// cells, and the rows of its tables of chart rows).
// The explain tests compare both with the timelines.
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!DOCTYPE html><body></body>', { pretendToBeVisual: true });
for (const name of ['window', 'document', 'navigator', 'Element', 'HTMLElement', 'SVGElement', 'DOMParser', 'MutationObserver', 'CSSStyleSheet']) {
  if (!(name in globalThis)) globalThis[name] = name === 'window' ? dom.window : dom.window[name];
}
// jsdom lays nothing out: text has no size. Positions do not matter here.
dom.window.SVGElement.prototype.getBBox = () => ({ x: 0, y: 0, width: 10, height: 10 });
dom.window.SVGElement.prototype.getComputedTextLength = () => 10;

// text is a name as Mermaid's renderer writes it into the SVG: Mermaid
// turns its entity codes (#58;) into markers before parsing, and the
// markers into HTML entities in the SVG (decodeEntities), which the
// browser reads.
const decoder = dom.window.document.createElement('div');
function text(s) {
  decoder.innerHTML = s.replace(/ﬂ°°/g, '&#').replace(/ﬂ°/g, '&').replace(/¶ß/g, ';');
  return decoder.textContent.trim();
}

async function charts(list) {
  const { default: mermaid } = await import('mermaid');
  mermaid.initialize({ startOnLoad: false, logLevel: 'fatal' });
  const out = [];
  for (const [i, chart] of list.entries()) {
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(chart);
    const tasks = diagram.db.getTasks().map((t) => ({
      section: text(t.section),
      task: text(t.task),
      start: t.startTime.getTime(),
      end: t.endTime.getTime(),
      milestone: Boolean(t.milestone),
      crit: Boolean(t.crit),
    }));
    const { svg } = await mermaid.render(`chart${i}`, chart);
    const drawn = new JSDOM(svg, { contentType: 'image/svg+xml' }).window.document;
    const texts = (selector) => [...drawn.querySelectorAll(selector)].map((e) => e.textContent.trim());
    out.push({ title: texts('text.titleText')[0] ?? '', sections: texts('text.sectionTitle'), tasks });
  }
  return out;
}

async function markdown(list) {
  const { marked } = await import('marked');
  return list.map((md) => {
    const html = new JSDOM(marked.parse(md, { gfm: true })).window.document;
    const texts = (selector) => [...html.querySelectorAll(selector)].map((e) => e.textContent.trim());
    // The tables whose first column is headed so, by their rows' cells.
    const tables = (heading) => [...html.querySelectorAll('table')]
      .filter((table) => table.querySelector('th')?.textContent.trim() === heading)
      .flatMap((table) => [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.cells].map((td) => td.textContent.trim())));
    return { headings: texts('h2'), quotes: texts('blockquote'), items: texts('li'), cells: tables('t (s)').flat(), rows: tables('chart row') };
  });
}

const input = JSON.parse(readFileSync(0, 'utf8'));
const out = {
  charts: await charts(input.charts ?? []),
  markdown: await markdown(input.markdown ?? []),
};
process.stdout.write(JSON.stringify(out));
