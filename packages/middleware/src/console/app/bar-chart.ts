const SVG = 'http://www.w3.org/2000/svg';

export interface ChartBar {
  label: string;
  value: number;
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

/**
 * Vertical bars as an SVG (no chart library: the console draws four bar charts, nothing more). Each bar
 * carries its label and value as data attributes and a <title> tooltip.
 *
 * @example
 * section.append(barChart('spend-chart', days.map((d) => ({ label: d.label, value: d.costUsd })), usd));
 */
export function barChart(id: string, bars: ChartBar[], format: (value: number) => string): SVGSVGElement {
  const width = 640;
  const height = 180;
  const bottom = 22;
  const top = 16;
  const chart = svg('svg', { id, class: 'chart', viewBox: `0 0 ${width} ${height}`, role: 'img' });
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  chart.append(svg('line', { x1: 0, x2: width, y1: height - bottom, y2: height - bottom, class: 'axis' }));
  if (bars.length === 0 || max === 0) {
    const empty = svg('text', { x: width / 2, y: height / 2, 'text-anchor': 'middle', class: 'empty' });
    empty.textContent = 'nothing yet';
    chart.append(empty);
    return chart;
  }
  const slot = width / bars.length;
  const barWidth = Math.max(2, Math.min(48, slot * 0.7));
  const labelEvery = Math.ceil(bars.length / 10);
  bars.forEach((bar, index) => {
    const barHeight = (bar.value / max) * (height - bottom - top);
    const x = index * slot + (slot - barWidth) / 2;
    const rect = svg('rect', { x, y: height - bottom - barHeight, width: barWidth, height: Math.max(barHeight, bar.value > 0 ? 1 : 0), class: 'bar', 'data-label': bar.label, 'data-value': bar.value });
    const title = svg('title', {});
    title.textContent = `${bar.label}: ${format(bar.value)}`;
    rect.append(title);
    chart.append(rect);
    if (index % labelEvery === 0) {
      // The first label starts at the edge instead of centring on its bar, so it is not cut off.
      const label = svg('text', index === 0 ? { x: 0, y: height - 6, class: 'label' } : { x: index * slot + slot / 2, y: height - 6, 'text-anchor': 'middle', class: 'label' });
      label.textContent = bar.label.length > 12 ? `${bar.label.slice(0, 11)}…` : bar.label;
      chart.append(label);
    }
  });
  const peak = svg('text', { x: 4, y: 11, class: 'peak' });
  peak.textContent = `max ${format(max)}`;
  chart.append(peak);
  return chart;
}
