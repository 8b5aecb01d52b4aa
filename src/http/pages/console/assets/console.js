// The console's progressive enhancement: every page works without it (plain links and forms);
// with it, statements draw their charts (Chart.js, served from node_modules), line editors grow and pages print.
'use strict';
(function () {
  function ready(fn) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', fn);
    else fn();
  }

  function drawCharts() {
    var block = document.getElementById('statement-data');
    if (!block || typeof window.Chart !== 'function') return;
    var data = JSON.parse(block.textContent || '{}');
    // ISO 4217's digits, sent by the page: the browser's own (CLDR) differ for some currencies (IQD, HUF...).
    var money = new Intl.NumberFormat('en-GB', { style: 'currency', currency: data.currency, minimumFractionDigits: data.digits, maximumFractionDigits: data.digits });
    var ticks = { callback: function (v) { return money.format(v); }, color: '#1b1b1b' };
    var common = { responsive: true, maintainAspectRatio: false, animation: false, plugins: { legend: { display: false }, tooltip: { callbacks: { label: function (c) { return money.format(c.parsed.y); } } } } };
    var ageing = document.getElementById('ageing-chart');
    if (ageing) {
      new window.Chart(ageing, {
        type: 'bar',
        data: { labels: data.ageing.labels, datasets: [{ label: 'Owed', data: data.ageing.values, backgroundColor: ['#1a56db', '#b45309', '#c2410c', '#b91c1c', '#7f1d1d'] }] },
        options: Object.assign({}, common, { scales: { y: { beginAtZero: true, ticks: ticks }, x: { ticks: { color: '#1b1b1b' } } } }),
      });
    }
    var balance = document.getElementById('balance-chart');
    if (balance) {
      new window.Chart(balance, {
        type: 'line',
        data: { labels: data.balance.labels, datasets: [{ label: 'Balance', data: data.balance.values, borderColor: '#1a56db', backgroundColor: '#1a56db', stepped: true, pointRadius: 3 }] },
        options: Object.assign({}, common, { scales: { y: { ticks: ticks }, x: { ticks: { color: '#1b1b1b', maxRotation: 60 } } } }),
      });
    }
    document.documentElement.setAttribute('data-charts', 'drawn');
  }

  // "Add a line": copies the last row of the editor with the next index and empty values.
  function lineEditors() {
    document.querySelectorAll('[data-add-line]').forEach(function (button) {
      var body = button.closest('fieldset').querySelector('[data-line-rows]');
      button.hidden = false;
      button.addEventListener('click', function () {
        var rows = body.querySelectorAll('tr');
        var last = rows[rows.length - 1];
        var next = rows.length;
        var copy = last.cloneNode(true);
        copy.querySelectorAll('input, label').forEach(function (el) {
          ['id', 'name', 'for'].forEach(function (a) {
            var v = el.getAttribute(a);
            if (v) el.setAttribute(a, v.replace(/^line\d+_/, 'line' + next + '_'));
          });
          if (el.tagName === 'INPUT') el.value = '';
          else el.textContent = el.textContent.replace(/Line \d+/, 'Line ' + (next + 1));
        });
        body.appendChild(copy);
        copy.querySelector('input').focus();
      });
    });
  }

  function printButtons() {
    document.querySelectorAll('[data-print]').forEach(function (b) {
      b.hidden = false;
      b.addEventListener('click', function () { window.print(); });
    });
  }

  // A refused field: its input is marked invalid and described by the words next to it; the first one takes the focus.
  function fieldErrors() {
    var first = null;
    document.querySelectorAll('.field-error[data-for]').forEach(function (p) {
      var input = document.getElementById(p.getAttribute('data-for'));
      if (!input) return;
      input.setAttribute('aria-invalid', 'true');
      var by = input.getAttribute('aria-describedby');
      input.setAttribute('aria-describedby', (by ? by + ' ' : '') + p.id);
      if (!first) first = input;
    });
    if (first) first.focus();
  }

  // Instants are written in UTC by the server; shown in the reader's own time zone, the UTC value stays on hover (title).
  function localTimes() {
    var fmt = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
    document.querySelectorAll('time[data-local]').forEach(function (t) {
      var d = new Date(t.getAttribute('datetime') || '');
      if (!isNaN(d.getTime())) t.textContent = fmt.format(d);
    });
  }

  ready(function () {
    localTimes();
    drawCharts();
    lineEditors();
    printButtons();
    fieldErrors();
  });
})();
