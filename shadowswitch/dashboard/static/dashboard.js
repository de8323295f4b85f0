// The task page's charts: uPlot over the JSON the page carries, refreshed every 10 s.
(function () {
  "use strict";
  const source = document.getElementById("task-data");
  if (!source || !window.uPlot) return;
  const plots = {};
  const width = (el) => Math.max(320, el.clientWidth || 480);
  const band = (label, stroke) => [
    { label, stroke, width: 2, spanGaps: true },
    { label: label + " low", stroke, dash: [4, 4], width: 1, spanGaps: true },
    { label: label + " high", stroke, dash: [4, 4], width: 1, spanGaps: true },
  ];
  const percentAxis = { values: (u, ticks) => ticks.map((v) => Math.round(v * 100) + "%") };

  function draw(id, options, data) {
    const el = document.getElementById(id);
    if (plots[id]) plots[id].destroy();
    plots[id] = new uPlot({ width: width(el), height: 220, ...options }, data, el);
  }

  function render(d) {
    const paths = ["local", "generative", "fallback"].filter((p) => d.latency[p]);
    draw("chart-latency", {
      scales: { x: { time: false, distr: 3 } },
      axes: [{ label: "ms" }, { label: "requests" }],
      series: [{}, ...paths.map((p, i) => ({ label: p, stroke: ["#1b7f3b", "#3358c4", "#b8741a"][i], width: 2 }))],
    }, [d.latency.bins_ms, ...paths.map((p) => d.latency[p])]);
    const s = d.series;
    draw("chart-agreement", {
      scales: { y: { range: [0, 1] } }, axes: [{}, percentAxis],
      series: [{}, ...band("same call", "#6a3fb5")],
    }, [s.t, s.agreement.rate, s.agreement.low, s.agreement.high]);
    draw("chart-success", {
      scales: { y: { range: [0, 1] } }, axes: [{}, percentAxis],
      series: [{}, ...band("local", "#1b7f3b"), ...band("generative", "#3358c4")],
    }, [s.t, s.success_local.rate, s.success_local.low, s.success_local.high,
        s.success_generative.rate, s.success_generative.low, s.success_generative.high]);
    const r = d.rollout_history;
    const now = Date.now() / 1000;
    const t = r.t.length ? [...r.t, now] : [now - 86400, now];
    const pct = r.percent.length ? [...r.percent, r.percent[r.percent.length - 1]] : [0, 0];
    const ramp = r.t.length ? [...r.ramp, null] : [null, null];
    draw("chart-rollout", {
      scales: { y: { range: [0, 100] } },
      series: [{}, { label: "local %", stroke: "#b8741a", width: 2, paths: uPlot.paths.stepped({ align: 1 }) },
        { label: "ramp", stroke: "#6a3fb5", width: 0, paths: () => null, points: { show: true, size: 9, fill: "#6a3fb5" } }],
    }, [t, pct, ramp]);
  }

  render(JSON.parse(source.textContent));
  const url = source.dataset.url;
  setInterval(() => {
    fetch(url, { credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : null))
      .then((d) => d && render(d))
      .catch(() => {});
  }, 10000);
})();
