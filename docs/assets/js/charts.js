// Draws each results page's chart from the figure its page carries (data-figure), with
// the plotly.min.js the site ships: no network needed to read the results.
document.addEventListener("DOMContentLoaded", () => {
  for (const element of document.querySelectorAll(".ldp-chart")) {
    const figure = JSON.parse(element.dataset.figure);
    Plotly.newPlot(element, figure.data, figure.layout, { responsive: true, displaylogo: false });
  }
});
