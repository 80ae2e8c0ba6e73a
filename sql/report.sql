-- sql/report.sql — writes one self-contained HTML page about the eval runs in a
-- database: pass rate and mean score per model across runs, failure rate per
-- constraint kind, the score distribution, the regressions and fixes since each
-- run's predecessor, the worst cases, inconclusive counts and where each run came
-- from.
--
--   sqlite3 runs.db < sql/report.sql > report.html
--
-- It reads only the tables and views of sql/schema.sql (runs, cases, checks,
-- run_summary, case_changes, kind_summary), so it needs neither the ifscore
-- extension nor anything else than the sqlite3 CLI (>= 3.25); it writes nothing
-- to the database (its working tables are TEMP). The page fetches nothing when
-- it is viewed: no scripts, styles, fonts or images from elsewhere; the charts
-- are inline SVG computed here. Every text from the database is HTML-escaped
-- (and cut at a NUL character, where the CLI would stop printing the page).
--
-- What is "latest": runs are ordered by completed_at (as a time, then as text,
-- then by run_id), the order case_changes pairs them in. A series is one model on
-- one dataset; the charts of constraint kinds and scores show each series' latest
-- run (for kinds, its latest run with stored checks, i.e. rescored by
-- sql/regrade.sql). Rates are the run_summary view's: over scored cases, passed =
-- score >= 0.5, rounded like the runner's summary.

.bail on
.headers off
.mode list
.nullvalue ''

-- A database without the tables of sql/schema.sql (made by a mistyped path, which
-- the CLI opens as a new, empty database) stops the page before it starts.
DROP TABLE IF EXISTS temp.rep_schema;
CREATE TEMP TABLE rep_schema (
  runs INTEGER
    CONSTRAINT "report: this database has no runs table (is the path right?): make the tables with sql/schema.sql and fill them with sql/import.sql"
    CHECK (runs)
);
INSERT INTO rep_schema
  SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = 'runs';
DROP TABLE temp.rep_schema;

-- ---- working tables ---------------------------------------------------------

-- One row per run, with its summary, its place in time and its series.
DROP TABLE IF EXISTS temp.rep_run;
CREATE TEMP TABLE rep_run AS
WITH base AS (
  SELECT r.*, s.scored_cases, s.inconclusive_cases, s.mean_score, s.pass_rate,
         s.good_case_pass_rate, s.bad_case_pass_rate,
         coalesce(r.model, '(no model)') AS model_name,
         julianday(r.completed_at) AS jd
  FROM runs AS r JOIN run_summary AS s USING (run_id)
),
placed AS (
  SELECT b.*,
         row_number() OVER (ORDER BY jd, completed_at, run_id) - 1 AS slot,
         dense_rank() OVER (ORDER BY model_name, dataset) - 1 AS series_no,
         row_number() OVER (PARTITION BY dataset, model
                            ORDER BY jd DESC, completed_at DESC, run_id DESC) AS recency,
         lag(run_id) OVER (PARTITION BY dataset, model
                           ORDER BY jd, completed_at, run_id) AS prev_run,
         lag(pass_rate) OVER (PARTITION BY dataset, model
                              ORDER BY jd, completed_at, run_id) AS prev_pass_rate,
         lag(scored_cases) OVER (PARTITION BY dataset, model
                                 ORDER BY jd, completed_at, run_id) AS prev_scored,
         (SELECT count(DISTINCT coalesce(dataset, '')) FROM runs) AS n_datasets
  FROM base AS b
)
SELECT p.*,
       -- Tableau 10: distinguishable, readable on white, and in grey print
       CASE p.series_no % 10
         WHEN 0 THEN '#4e79a7' WHEN 1 THEN '#f28e2b' WHEN 2 THEN '#59a14f'
         WHEN 3 THEN '#e15759' WHEN 4 THEN '#76b7b2' WHEN 5 THEN '#edc948'
         WHEN 6 THEN '#b07aa1' WHEN 7 THEN '#ff9da7' WHEN 8 THEN '#9c755f'
         ELSE '#bab0ac' END AS color,
       CASE WHEN p.pass_rate IS NULL THEN '—'
            ELSE rtrim(rtrim(printf('%.2f', 100 * p.pass_rate), '0'), '.') || '%' END
         AS pass_txt,
       CASE WHEN p.good_case_pass_rate IS NULL THEN '—'
            ELSE rtrim(rtrim(printf('%.2f', 100 * p.good_case_pass_rate), '0'), '.') || '%' END
         AS good_txt,
       CASE WHEN p.bad_case_pass_rate IS NULL THEN '—'
            ELSE rtrim(rtrim(printf('%.2f', 100 * p.bad_case_pass_rate), '0'), '.') || '%' END
         AS bad_txt,
       CASE WHEN p.mean_score IS NULL THEN '—' ELSE printf('%.4f', p.mean_score) END
         AS mean_txt,
       (SELECT count(*) FROM cases AS c WHERE c.run_id = p.run_id) AS n_cases,
       (SELECT count(*) FROM cases AS c
        WHERE c.run_id = p.run_id AND c.scored_by = 'regrade') AS n_regraded,
       (SELECT count(*) FROM cases AS c
        WHERE c.run_id = p.run_id AND NOT c.rescorable) AS n_not_rescorable,
       EXISTS (SELECT 1 FROM checks AS k WHERE k.run_id = p.run_id) AS has_checks,
       -- the day and the time of completion, escaped (when not a time, the text)
       replace(replace(replace(replace(replace(printf('%s', coalesce(date(p.completed_at), substr(p.completed_at, 1, 10), '')), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS day,
       strftime('%H:%M', p.completed_at) AS hm,
       replace(replace(replace(replace(replace(printf('%s', coalesce(strftime('%Y-%m-%d %H:%M UTC', p.completed_at), p.completed_at, '')), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS when_text,
       replace(replace(replace(replace(replace(printf('%s', p.run_id), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS run_h,
       replace(replace(replace(replace(replace(printf('%s', CASE WHEN length(p.run_id) > 18 THEN substr(p.run_id, 1, 17) || '…'
              ELSE p.run_id END), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS run_short_h,
       replace(replace(replace(replace(replace(printf('%s', p.model_name), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS model_h,
       replace(replace(replace(replace(replace(printf('%s', coalesce(p.dataset, '')), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS dataset_h,
       replace(replace(replace(replace(replace(printf('%s', CASE WHEN p.n_datasets > 1
              THEN p.model_name || ' · ' || coalesce(p.dataset, 'no dataset')
              ELSE p.model_name END), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS series_h,
       replace(replace(replace(replace(replace(printf('%s', coalesce(p.agent_endpoint, '')), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS endpoint_h,
       replace(replace(replace(replace(replace(printf('%s', coalesce(p.pipeline, '')), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS pipeline_h,
       replace(replace(replace(replace(replace(printf('%s', coalesce(p.results_file, '')), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS file_h,
       replace(replace(replace(replace(replace(printf('%s', coalesce(p.prev_run, '')), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS prev_h,
       -- the runner's total_cases: a number, unless it wrote text
       replace(replace(replace(replace(replace(printf('%s', coalesce(p.total_cases, '—')), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS total_h
FROM placed AS p;
-- The series' label after its colour swatch; a legend entry naming the run.
-- (Texts from the data in <bdi>, so that their direction controls stay theirs.)
ALTER TABLE rep_run ADD COLUMN label_h TEXT;
ALTER TABLE rep_run ADD COLUMN legend_run_h TEXT;
UPDATE rep_run SET
  label_h = '<span class="sw" style="background:' || color || '"></span><bdi>' || series_h
    || '</bdi>',
  legend_run_h = '<li><span class="sw" style="background:' || color || '"></span><bdi>'
    || series_h || '</bdi> <span class="run"><bdi>' || run_short_h || '</bdi>'
    || CASE WHEN day <> '' THEN ' · ' || day ELSE '' END || '</span></li>';

-- The cases, with the texts the page shows escaped (long ones cut).
DROP TABLE IF EXISTS temp.rep_case;
CREATE TEMP TABLE rep_case AS
SELECT c.run_id, c.ord, c.id, c.score, c.passed, c.reason, c.scored_by, c.rescorable,
       CASE WHEN c.score IS NULL THEN '—' ELSE printf('%.4f', c.score) END AS score_txt,
       replace(replace(replace(replace(replace(printf('%s', c.id), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS id_h,
       replace(replace(replace(replace(replace(printf('%s', coalesce(c.reason, '')), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS reason_h,
       replace(replace(replace(replace(replace(printf('%s', CASE WHEN length(c.agent_response) > 280
              THEN substr(c.agent_response, 1, 279) || '…'
              ELSE coalesce(c.agent_response, '') END), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS response_h,
       replace(replace(replace(replace(replace(printf('%s', CASE WHEN length(c.input) > 200 THEN substr(c.input, 1, 199) || '…'
              ELSE coalesce(c.input, '') END), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS input_h
FROM cases AS c;
CREATE INDEX temp.rep_case_key ON rep_case (run_id, id);

-- Number formats, written inline below: rates are the view's, shown as
-- percentages with its 4 decimals (0.6667 -> 66.67%, 0.9 -> 90%), scores with 4
-- decimals; a NULL shows as an em dash.

-- ---- the page ---------------------------------------------------------------

SELECT '<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="ifscore sql/report.sql">
<title>Eval runs: ' || (SELECT count(*) FROM rep_run) || ' runs of '
  || (SELECT count(DISTINCT model_name) FROM rep_run) || ' models</title>
<style>
:root { --ink: #1d2530; --muted: #5b6675; --faint: #8b95a3; --line: #dde2e8;
        --bg: #f4f6f8; --card: #fff; --bad: #b3261e; --bad-bg: #fdecea;
        --good: #1e7b34; --good-bg: #e6f4ea; --na: #5b6675; --na-bg: #eceff3; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
       font: 14px/1.45 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto,
             "Helvetica Neue", Arial, "Liberation Sans", sans-serif; }
main { max-width: 1280px; margin: 0 auto; padding: 18px 24px 32px; }
header.page { display: flex; flex-wrap: wrap; align-items: baseline;
              justify-content: space-between; gap: 4px 24px; margin: 4px 0 12px; }
h1 { font-size: 22px; line-height: 1.2; margin: 0; }
h2 { font-size: 16px; margin: 0; }
h3 { font-size: 14px; margin: 14px 0 6px; }
.sub { color: var(--muted); font-size: 13px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px;
          padding: 14px 18px 16px; margin: 0 0 14px; }
section > .sub { margin: 2px 0 10px; }
.grid2 { display: grid; grid-template-columns: repeat(auto-fit, minmax(460px, 1fr));
         gap: 14px; }
.grid2 > section { margin: 0; }
.row2 { margin-bottom: 14px; }
figure { margin: 0; }
svg.chart { display: block; width: 100%; height: auto; overflow: visible; }
svg.chart text { font-family: inherit; font-size: 11px; fill: #4a5563; }
svg.chart .axis-title { font-size: 11px; fill: var(--muted); }
svg.chart .value { font-size: 10.5px; fill: #2a323d; font-weight: 600; }
svg.chart .grid { stroke: #e6e9ee; stroke-width: 1; }
svg.chart .axis { stroke: #9aa3af; stroke-width: 1; }
.legend { display: flex; flex-wrap: wrap; gap: 2px 18px; font-size: 12.5px;
          margin: 8px 0 6px; padding: 0; list-style: none; }
.legend li { max-width: 100%; overflow-wrap: anywhere; }   /* one line, unless too long */
.sw { display: inline-block; width: 12px; height: 12px; border-radius: 3px;
      margin-right: 6px; vertical-align: -1px; }
.legend .run { color: var(--muted); }
.kpis { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr));
        gap: 12px; }
.kpi { border: 1px solid var(--line); border-top: 4px solid var(--c);
       border-radius: 6px; padding: 10px 14px; background: #fff; }
.kpi .model { font-weight: 650; font-size: 15px; overflow-wrap: anywhere; }
/* run ids in a card break where they must; text from the data keeps its
   direction controls to itself (a right-to-left override in an id would
   reverse what follows it) */
.kpi .meta, .kpi .line, .pair { overflow-wrap: anywhere; }
span, td, th, li, h3 { unicode-bidi: isolate; }
.kpi .meta { color: var(--muted); font-size: 12px; }
.kpi .big { font-size: 28px; font-weight: 650; letter-spacing: -0.5px; }
.kpi .line { margin-top: 2px; font-size: 13px; }
.delta { font-size: 13px; font-weight: 600; margin-left: 6px; white-space: nowrap; }
.up { color: var(--good); } .down { color: var(--bad); } .flat { color: var(--muted); }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
table.fixed { table-layout: fixed; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line);
         vertical-align: top; overflow-wrap: anywhere; }   /* long names break, not the page */
thead th { font-size: 12px; font-weight: 600; color: var(--muted);
           background: #f8f9fb; border-bottom: 1px solid #cfd5dd; }
tbody tr:nth-child(even) td { background: #fbfcfd; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
thead th.num, td.num .sub { white-space: normal; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono",
        "Liberation Mono", monospace; font-size: 12.5px; }
.wrap { overflow-wrap: break-word; }
td.mono, td .mono { overflow-wrap: anywhere; }   /* long ids break when they must */
td.score { white-space: normal; }
.resp { white-space: pre-wrap; overflow-wrap: break-word; color: var(--muted);
        font-size: 12.5px; margin-top: 4px; padding-left: 8px;
        border-left: 2px solid var(--line); }
.badge { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px;
         font-weight: 600; white-space: nowrap; }
.badge.regressed { background: var(--bad-bg); color: var(--bad); }
.badge.fixed { background: var(--good-bg); color: var(--good); }
.badge.inconclusive { background: var(--na-bg); color: var(--na); }
.pair { display: flex; flex-wrap: wrap; align-items: baseline; gap: 2px 14px;
        margin: 16px 0 6px; }
.pair:first-of-type { margin-top: 6px; }
.counts { color: var(--muted); font-size: 13px; }
.empty { color: var(--muted); font-style: italic; margin: 6px 0; }
.more { color: var(--muted); margin: 6px 0; }
footer { color: var(--faint); font-size: 12px; margin: 18px 2px 0; }
@media (max-width: 1000px) { th, td { padding: 5px 5px; }
  .badge { padding: 0 5px; font-size: 11px; } }
@media (max-width: 720px) { main { padding: 12px; } .grid2 { grid-template-columns: 1fr; } }
@media print {
  @page { size: A4; margin: 12mm; }
  body { background: #fff; font-size: 9pt;
         -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  h1 { font-size: 16pt; } h2 { font-size: 12pt; } h3 { font-size: 10pt; }
  .sub, .counts, .legend { font-size: 8pt; }
  table { font-size: 8pt; } thead th { font-size: 7.5pt; }
  th, td { padding: 3pt 4pt; }
  .mono, .resp { font-size: 7.5pt; }
  .kpi .big { font-size: 20pt; } .kpi .model { font-size: 11pt; }
  .kpi .line, .delta { font-size: 8.5pt; }
  main { max-width: none; padding: 0; }
  section { border: none; border-radius: 0; padding: 0; margin: 0 0 14pt; }
  .grid2 { grid-template-columns: 1fr 1fr; gap: 12pt; }
  .grid2 > section, figure, .kpi, .pair { break-inside: avoid; }
  h2, h3, .pair { break-after: avoid; }
  tr { break-inside: avoid; }
  thead { display: table-header-group; }
  tbody tr:nth-child(even) td { background: none; }
}
</style>
</head>
<body>
<main>';

-- ---- header -----------------------------------------------------------------
SELECT '<header class="page"><h1>Eval runs</h1><div class="sub">'
  || CASE WHEN count(*) = 0 THEN 'No runs in this database yet: import some with sql/import.sql.'
     ELSE count(*) || CASE count(*) WHEN 1 THEN ' run' ELSE ' runs' END
       || ' of ' || count(DISTINCT model_name)
       || CASE count(DISTINCT model_name) WHEN 1 THEN ' model' ELSE ' models' END
       || ' on ' || count(DISTINCT coalesce(dataset, ''))
       || CASE count(DISTINCT coalesce(dataset, '')) WHEN 1 THEN ' dataset' ELSE ' datasets' END
       || coalesce(' · ' || min(nullif(day, '')) || ' to ' || max(nullif(day, '')), '')
       || ' · ' || sum(n_cases) || ' cases, ' || sum(n_regraded) || ' rescored by ifscore'
     END
  || '</div></header>'
FROM rep_run;

-- ---- latest run of each series ------------------------------------------------
SELECT '<section id="latest"><h2>Latest run of each model</h2>'
  || '<div class="sub">Pass rate over scored cases (score ≥ 0.5); the change is against the model''s previous run on the same dataset.</div>'
  || '<div class="kpis">'
  || coalesce((SELECT group_concat(card, '') FROM (
       SELECT '<div class="kpi" data-run="' || r.run_h || '" style="--c:' || r.color || '">'
         || '<div class="model">' || r.series_h || '</div>'
         || '<div class="meta">run <span class="mono">' || r.run_h || '</span>'
         || CASE WHEN r.day <> '' THEN ' · ' || r.day ELSE '' END || '</div>'
         || '<div class="line"><span class="big" data-k="pass_rate">'
         || r.pass_txt || '</span> pass rate'
         || CASE WHEN r.pass_rate IS NOT NULL AND r.prev_pass_rate IS NOT NULL THEN
              '<span class="delta '
              || CASE WHEN r.pass_rate > r.prev_pass_rate THEN 'up">▲ '
                      WHEN r.pass_rate < r.prev_pass_rate THEN 'down">▼ '
                      ELSE 'flat">± ' END
              || rtrim(rtrim(printf('%.2f', abs(100 * (r.pass_rate - r.prev_pass_rate))), '0'), '.')
              || ' pts</span>'
            ELSE '' END
         || '</div>'
         || '<div class="line">mean score <b data-k="mean_score">'
         || r.mean_txt || '</b> · '
         || r.scored_cases || ' scored'
         -- a change of pass rate may come from fewer or more cases scored: say so
         || CASE WHEN r.prev_scored <> r.scored_cases THEN
              ' <span class="flat" data-k="prev_scored">(' || r.prev_scored || ' before)</span>'
            ELSE '' END
         || ' · ' || r.inconclusive_cases || ' inconclusive</div>'
         || '<div class="line">'
         || CASE WHEN r.prev_run IS NULL THEN '<span class="flat">first run of this model on the dataset</span>'
            ELSE '<span class="down" data-k="regressed">'
              || (SELECT count(*) FROM case_changes AS x WHERE x.to_run = r.run_id AND x.change = 'regressed')
              || ' regressed</span> · <span class="up" data-k="fixed">'
              || (SELECT count(*) FROM case_changes AS x WHERE x.to_run = r.run_id AND x.change = 'fixed')
              || ' fixed</span> <span class="flat">since <bdi>' || r.prev_h || '</bdi></span>'
            END
         || '</div></div>' AS card
       FROM rep_run AS r WHERE r.recency = 1 ORDER BY r.series_no)), '')
  || '</div></section>'
WHERE EXISTS (SELECT 1 FROM rep_run);

-- The legend of the series (HTML, under each chart's title).
DROP TABLE IF EXISTS temp.rep_legend;
CREATE TEMP TABLE rep_legend AS
SELECT '<ul class="legend">' || group_concat(item, '') || '</ul>' AS all_runs,
       '<ul class="legend">' || group_concat(latest, '') || '</ul>' AS latest_runs
FROM (SELECT series_no,
             max(CASE WHEN recency = 1 THEN '<li>' || label_h || '</li>' END) AS item,
             max(CASE WHEN recency = 1 THEN legend_run_h END) AS latest
      FROM rep_run GROUP BY series_no ORDER BY series_no);

-- ---- pass rate and mean score across runs (line charts) ---------------------
-- x: every run in time order, one slot each; y: 0..1. A line joins the runs of a
-- series. Values are written above the points while a slot is at least 44 units
-- wide; every point has a tooltip.
SELECT '<div class="grid2 row2">' || group_concat(fig, '') || '</div>'
FROM (
  WITH dims (W, H, L, R, T, B) AS (SELECT 600.0, 300.0, 56.0, 16.0, 26.0, 64.0),
  n (n, every, labels) AS (
    SELECT count(*),
           max(1, (count(*) * 84 + 527) / 528),      -- label every k-th slot
           528.0 / count(*) >= 44                    -- room for value labels
    FROM rep_run),
  metric (m, slug, title, sub, axis) AS (VALUES
    (0, 'pass-rate', 'Pass rate across runs',
     'Share of scored cases with score ≥ 0.5 (run_summary.pass_rate), each run in order of completion.',
     'pass rate'),
    (1, 'mean-score', 'Mean score across runs',
     'Mean score over scored cases (run_summary.mean_score), each run in order of completion.',
     'mean score')),
  pt AS (
    SELECT m.m, r.series_no, r.slot, r.color, r.run_h, r.run_short_h, r.series_h, r.day,
           -- a slot's label: its day, or its time where the slot labelled before
           -- has the same day (else runs of one day read as one)
           CASE WHEN r.day = '' THEN r.run_short_h
                WHEN r.hm IS NOT NULL AND r.day = (SELECT b.day FROM rep_run AS b
                                                   WHERE b.slot = r.slot - n.every)
                THEN r.hm ELSE r.day END AS slot_label,
           CASE m.m WHEN 0 THEN r.pass_rate ELSE r.mean_score END AS v,
           d.L + (d.W - d.L - d.R) * (r.slot + 0.5) / n.n AS x
    FROM metric AS m, rep_run AS r, dims AS d, n),
  pty AS (
    -- (a mean score outside 0..1, from a runner's odd scores, at the edge it passed)
    SELECT pt.*, d.T + (d.H - d.T - d.B) * (1.0 - max(0.0, min(1.0, v))) AS y,
           CASE pt.m WHEN 0 THEN rtrim(rtrim(printf('%.2f', 100 * v), '0'), '.') || '%'
                     ELSE printf('%.4f', v) END AS label
    FROM pt, dims AS d WHERE v IS NOT NULL),
  ticks (v) AS (VALUES (0.0), (0.25), (0.5), (0.75), (1.0))
  SELECT m.m,
    '<section><figure id="chart-' || m.slug || '"><h2>' || m.title || '</h2>'
    || '<div class="sub">' || m.sub || '</div>'
    || (SELECT all_runs FROM rep_legend)
    || '<svg class="chart" viewBox="0 0 600 300" role="img" aria-label="' || m.title || '">'
    -- grid and y axis
    || (SELECT group_concat(
          '<line class="grid" x1="' || d.L || '" x2="' || (d.W - d.R) || '" y1="'
          || printf('%.1f', d.T + (d.H - d.T - d.B) * (1 - t.v)) || '" y2="'
          || printf('%.1f', d.T + (d.H - d.T - d.B) * (1 - t.v)) || '"/>'
          || '<text class="tick-y" x="' || (d.L - 8) || '" y="'
          || printf('%.1f', d.T + (d.H - d.T - d.B) * (1 - t.v) + 4)
          || '" text-anchor="end" data-v="' || t.v || '">'
          || CASE m.m WHEN 0 THEN printf('%g%%', 100 * t.v) ELSE printf('%g', t.v) END
          || '</text>', '')
        FROM ticks AS t)
    || '<line class="axis" x1="' || d.L || '" x2="' || (d.W - d.R) || '" y1="'
    || (d.H - d.B) || '" y2="' || (d.H - d.B) || '"/>'
    || '<text class="axis-title" transform="rotate(-90)" x="'
    || printf('%.1f', -(d.T + (d.H - d.T - d.B) / 2)) || '" y="14" text-anchor="middle">'
    || m.axis || '</text>'
    -- x axis: the runs
    || coalesce((SELECT group_concat(
          '<line class="axis" x1="' || printf('%.1f', x) || '" x2="' || printf('%.1f', x)
          || '" y1="' || (d.H - d.B) || '" y2="' || (d.H - d.B + 4) || '"/>'
          || CASE WHEN slot % n.every = 0 THEN
               '<text class="slot" x="' || printf('%.1f', x) || '" y="' || (d.H - d.B + 17)
               || '" text-anchor="middle">' || slot_label || '</text>'
               || CASE WHEN n.every = 1 AND n.labels AND day <> '' AND 528.0 / n.n >= 110 THEN
                    '<text class="axis-title" x="' || printf('%.1f', x) || '" y="'
                    || (d.H - d.B + 31) || '" text-anchor="middle">' || run_short_h || '</text>'
                  ELSE '' END
             ELSE '' END, '')
        FROM (SELECT * FROM pt WHERE pt.m = m.m ORDER BY slot)), '')
    || '<text class="axis-title" x="' || printf('%.1f', d.L + (d.W - d.L - d.R) / 2)
    || '" y="' || (d.H - 6) || '" text-anchor="middle">runs, in order of completion</text>'
    -- one line per series
    || coalesce((SELECT group_concat(line, '') FROM (
          SELECT '<polyline fill="none" stroke="' || color
                 || '" stroke-width="2.5" stroke-linejoin="round" points="'
                 || group_concat(printf('%.1f,%.1f', x, y), ' ') || '"/>' AS line
          FROM (SELECT * FROM pty WHERE pty.m = m.m ORDER BY series_no, slot)
          GROUP BY series_no ORDER BY series_no)), '')
    -- the points, with their values
    || coalesce((SELECT group_concat(
          '<g class="point" data-run="' || run_h || '" data-v="' || v || '">'
          || '<circle cx="' || printf('%.1f', x) || '" cy="' || printf('%.1f', y)
          || '" r="4.5" fill="' || color || '" stroke="#fff" stroke-width="1.5">'
          || '<title>' || series_h || ' · run ' || run_h
          || CASE WHEN day <> '' THEN ' · ' || day ELSE '' END || ': ' || m.axis || ' '
          || label || '</title></circle>'
          || CASE WHEN n.labels THEN
               '<text class="value" x="' || printf('%.1f', x) || '" y="'
               || printf('%.1f', y - 10) || '" text-anchor="middle">' || label || '</text>'
             ELSE '' END
          || '</g>', '')
        FROM (SELECT * FROM pty WHERE pty.m = m.m ORDER BY slot)), '')
    || '</svg></figure></section>' AS fig
  FROM metric AS m, dims AS d, n
  ORDER BY m.m
)
WHERE EXISTS (SELECT 1 FROM rep_run);

-- ---- failure rate per constraint kind, score distribution --------------------
-- Both show the latest run of each series: for kinds its latest run with stored
-- checks (kind_summary), for scores its latest run.
DROP TABLE IF EXISTS temp.rep_kind_run;
CREATE TEMP TABLE rep_kind_run AS
SELECT r.* FROM rep_run AS r
WHERE r.has_checks
  AND NOT EXISTS (SELECT 1 FROM rep_run AS o
                  WHERE o.series_no = r.series_no AND o.has_checks AND o.slot > r.slot);

SELECT '<div class="grid2 row2">'
-- horizontal bars: a group per kind, a bar per series; x: 0..100 %
|| '<section><figure id="chart-kinds"><h2>Failure rate per constraint kind</h2>'
|| '<div class="sub">Failed checks as a share of the checks of each kind (kind_summary), in the latest rescored run of each model.</div>'
|| CASE WHEN NOT EXISTS (SELECT 1 FROM rep_kind_run) THEN
     '<p class="empty">No stored checks yet: sql/regrade.sql stores them when it rescores the runs.</p>'
   ELSE
     '<ul class="legend">' || (SELECT group_concat(legend_run_h, '')
        FROM (SELECT * FROM rep_kind_run ORDER BY series_no)) || '</ul>'
     || (SELECT svg FROM (
       WITH s AS (SELECT series_no, run_id, run_h, color, series_h,
                         row_number() OVER (ORDER BY series_no) - 1 AS si,
                         count(*) OVER () AS ns
                  FROM rep_kind_run),
       k AS (SELECT ks.kind, max(ks.fail_rate) AS worst
             FROM kind_summary AS ks JOIN s USING (run_id) GROUP BY ks.kind),
       ko AS (SELECT kind, replace(replace(replace(replace(replace(printf('%s', kind), '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;') AS kind_h,
                     row_number() OVER (ORDER BY worst DESC, kind) - 1 AS ki,
                     count(*) OVER () AS nk FROM k),
       g (W, L, R, T, B, bh, gap) AS (
         SELECT 600.0, 112.0, 96.0, 10.0, 40.0,
                CASE WHEN (SELECT count(*) FROM s) <= 3 THEN 14.0 ELSE 11.0 END, 14.0),
       geo AS (SELECT g.*, (SELECT ns FROM s LIMIT 1) AS ns, (SELECT count(*) FROM ko) AS nk,
                      (SELECT ns FROM s LIMIT 1) * (g.bh + 2) - 2 + g.gap AS gh
               FROM g),
       dims AS (SELECT geo.*, T + nk * gh + B AS H, W - L - R AS pw FROM geo),
       bar AS (
         SELECT ks.kind, ko.kind_h, ks.checks, ks.failed, s.si, s.run_h, s.color, s.series_h, ko.ki,
                d.L AS x, d.T + ko.ki * d.gh + d.gap / 2 + s.si * (d.bh + 2) AS y,
                d.pw * ks.fail_rate AS w,
                -- percent to one decimal, halves up, in integers: exact
                (2000 * ks.failed + ks.checks) / (2 * ks.checks) AS tenths
         FROM kind_summary AS ks JOIN s USING (run_id) JOIN ko USING (kind), dims AS d),
       ticks (v) AS (VALUES (0.0), (0.25), (0.5), (0.75), (1.0))
       SELECT '<svg class="chart" viewBox="0 0 600 ' || printf('%.0f', d.H)
         || '" role="img" aria-label="Failure rate per constraint kind">'
         || (SELECT group_concat(
              '<line class="grid" x1="' || printf('%.1f', d.L + d.pw * t.v) || '" x2="'
              || printf('%.1f', d.L + d.pw * t.v) || '" y1="' || d.T || '" y2="'
              || (d.H - d.B) || '"/><text class="tick-x" x="' || printf('%.1f', d.L + d.pw * t.v)
              || '" y="' || (d.H - d.B + 15) || '" text-anchor="middle" data-v="' || t.v || '">'
              || printf('%g%%', 100 * t.v) || '</text>', '') FROM ticks AS t)
         || '<line class="axis" x1="' || d.L || '" x2="' || d.L || '" y1="' || d.T
         || '" y2="' || (d.H - d.B) || '"/>'
         || '<text class="axis-title" x="' || printf('%.1f', d.L + d.pw / 2) || '" y="'
         || (d.H - 6) || '" text-anchor="middle">failed checks, % of the kind''s checks</text>'
         || (SELECT group_concat(
              '<text x="' || (d.L - 8) || '" y="'
              || printf('%.1f', d.T + ko.ki * d.gh + d.gh / 2 + 4)
              || '" text-anchor="end">' || ko.kind_h || '</text>', '')
             FROM (SELECT * FROM ko ORDER BY ki) AS ko)
         || (SELECT group_concat(
              '<g class="bar" data-run="' || run_h || '" data-kind="' || kind_h
              || '" data-checks="' || checks || '" data-failed="' || failed || '">'
              || '<rect x="' || printf('%.1f', x) || '" y="' || printf('%.1f', y)
              || '" width="' || printf('%.1f', max(w, 1.5)) || '" height="' || d.bh
              || '" rx="2" fill="' || color || '"><title>' || series_h || ' · run ' || run_h
              || ': ' || kind_h || ' failed ' || failed || ' of ' || checks || '</title></rect>'
              || '<text class="value" x="' || printf('%.1f', x + max(w, 1.5) + 5) || '" y="'
              || printf('%.1f', y + d.bh / 2 + 3.5) || '">'
              || (tenths / 10) || CASE WHEN tenths % 10 <> 0 THEN '.' || (tenths % 10) ELSE '' END
              || '% (' || failed || '/' || checks || ')</text></g>', '')
             FROM (SELECT * FROM bar ORDER BY ki, si))
         || '</svg>' AS svg
       FROM dims AS d))
   END
|| '</figure></section>'
-- vertical bars: score bins of 0.1 (a bin holds its lower edge; 1 is in the last)
-- and the inconclusive cases, a bar per series
|| '<section><figure id="chart-scores"><h2>Score distribution</h2>'
|| '<div class="sub">Cases per score bin of 0.1 (a bin holds its lower edge, 1 is in the last), and cases with no score, in the latest run of each model.</div>'
|| (SELECT latest_runs FROM rep_legend)
|| (SELECT svg FROM (
     WITH s AS (SELECT series_no, run_id, run_h, color, series_h,
                       row_number() OVER (ORDER BY series_no) - 1 AS si,
                       count(*) OVER () AS ns
                FROM rep_run WHERE recency = 1),
     bins (b) AS (VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9), (10)),
     counted AS (
       SELECT s.si, b.b,
              (SELECT count(*) FROM cases AS c WHERE c.run_id = s.run_id
                 AND CASE WHEN c.score IS NULL THEN 10
                          WHEN c.score >= 1 THEN 9
                          WHEN c.score < 0 THEN 0
                          ELSE CAST(c.score * 10 AS INTEGER) END = b.b) AS n
       FROM s, bins AS b),
     top (m) AS (SELECT max(1, max(n)) FROM counted),
     -- the smallest step of 1, 2, 2.5 or 5 x 10^k giving at most 5 steps
     step (st) AS (SELECT min(column1) FROM (VALUES (1), (2), (5), (10), (20), (25), (50),
                   (100), (200), (250), (500), (1000), (2000), (2500), (5000), (10000),
                   (20000), (25000), (50000), (100000), (200000), (250000), (500000),
                   (1000000)), top WHERE column1 * 5 >= top.m),
     ymax (ym) AS (SELECT ((m + st - 1) / st) * st FROM top, step),
     dims (W, H, L, R, T, B, pw, ph, unit) AS (
       SELECT 600.0, 300.0, 52.0, 14.0, 26.0, 64.0, 534.0, 210.0, 534.0 / 11.5),
     yt (v) AS (SELECT 0 UNION ALL SELECT v + (SELECT st FROM step) FROM yt
                WHERE v + (SELECT st FROM step) <= (SELECT ym FROM ymax)),
     bar AS (
       SELECT c.si, c.b, c.n, s.run_h, s.color, s.series_h, s.ns,
              d.L + d.unit * (c.b + CASE WHEN c.b = 10 THEN 0.5 ELSE 0 END)
                + d.unit * 0.12 + c.si * (d.unit * 0.76 / s.ns) AS x,
              d.unit * 0.76 / s.ns - 1 AS w,
              d.ph * c.n / (SELECT ym FROM ymax) AS h
       FROM counted AS c JOIN s USING (si), dims AS d)
     SELECT '<svg class="chart" viewBox="0 0 600 300" role="img" aria-label="Score distribution">'
       || (SELECT group_concat(
            '<line class="grid" x1="' || d.L || '" x2="' || (d.W - d.R) || '" y1="'
            || printf('%.1f', d.T + d.ph - d.ph * yt.v / (SELECT ym FROM ymax)) || '" y2="'
            || printf('%.1f', d.T + d.ph - d.ph * yt.v / (SELECT ym FROM ymax)) || '"/>'
            || '<text class="tick-y" x="' || (d.L - 8) || '" y="'
            || printf('%.1f', d.T + d.ph - d.ph * yt.v / (SELECT ym FROM ymax) + 4)
            || '" text-anchor="end" data-v="' || yt.v || '">' || yt.v || '</text>', '')
           FROM yt)
       || '<line class="axis" x1="' || d.L || '" x2="' || (d.W - d.R) || '" y1="'
       || (d.T + d.ph) || '" y2="' || (d.T + d.ph) || '"/>'
       || '<text class="axis-title" transform="rotate(-90)" x="'
       || printf('%.1f', -(d.T + d.ph / 2)) || '" y="14" text-anchor="middle">cases</text>'
       -- bin edges 0 .. 1, the inconclusive bin, the pass threshold
       || (SELECT group_concat(
            '<line class="axis" x1="' || printf('%.1f', d.L + d.unit * e.b) || '" x2="'
            || printf('%.1f', d.L + d.unit * e.b) || '" y1="' || (d.T + d.ph) || '" y2="'
            || (d.T + d.ph + 4) || '"/><text x="' || printf('%.1f', d.L + d.unit * e.b)
            || '" y="' || (d.T + d.ph + 17) || '" text-anchor="middle">'
            || printf('%g', e.b / 10.0) || '</text>', '') FROM bins AS e)
       || '<text x="' || printf('%.1f', d.L + d.unit * 11) || '" y="' || (d.T + d.ph + 17)
       || '" text-anchor="middle">none</text>'
       || '<line x1="' || printf('%.1f', d.L + d.unit * 5) || '" x2="'
       || printf('%.1f', d.L + d.unit * 5) || '" y1="' || (d.T - 8) || '" y2="' || (d.T + d.ph)
       || '" stroke="#6b7280" stroke-width="1" stroke-dasharray="4 3"/>'
       || '<text class="axis-title" x="' || printf('%.1f', d.L + d.unit * 5 + 5) || '" y="'
       || (d.T - 2) || '">pass ≥ 0.5</text>'
       || '<text class="axis-title" x="' || printf('%.1f', d.L + d.unit * 5) || '" y="'
       || (d.H - 6) || '" text-anchor="middle">score</text>'
       || '<text class="axis-title" x="' || printf('%.1f', d.L + d.unit * 11) || '" y="'
       || (d.H - 6) || '" text-anchor="middle">inconclusive</text>'
       || coalesce((SELECT group_concat(
            '<g class="bin" data-run="' || run_h || '" data-bin="' || b || '" data-n="' || n
            || '"><rect x="' || printf('%.1f', x) || '" y="'
            || printf('%.1f', d.T + d.ph - h) || '" width="' || printf('%.1f', w)
            || '" height="' || printf('%.1f', h) || '" rx="1.5" fill="' || color || '">'
            || '<title>' || series_h || ' · run ' || run_h || ': ' || n
            || CASE n WHEN 1 THEN ' case' ELSE ' cases' END || ' '
            || CASE WHEN b = 10 THEN 'with no score'
                    WHEN b = 9 THEN 'scored 0.9 to 1'
                    ELSE 'scored ' || printf('%g', b / 10.0) || ' to under '
                         || printf('%g', (b + 1) / 10.0) END
            || '</title></rect>'
            || CASE WHEN length(n) * 6.5 <= w + 1 THEN   -- the count fits above its bar
                 '<text class="value" x="' || printf('%.1f', x + w / 2) || '" y="'
                 || printf('%.1f', d.T + d.ph - h - 4) || '" text-anchor="middle">' || n
                 || '</text>'
               ELSE '' END
            || '</g>', '')
          FROM (SELECT * FROM bar WHERE n > 0 ORDER BY b, si)), '')
       || '</svg>' AS svg
     FROM dims AS d))
|| '</figure></section></div>'
WHERE EXISTS (SELECT 1 FROM rep_run);

-- ---- the runs: summary ---------------------------------------------------------
SELECT '<section id="summary"><h2>Summary per run</h2>'
  || '<div class="sub">The runner''s summary recomputed from the current scores (view run_summary): rates over scored cases, passed = score ≥ 0.5. Regressed and fixed: against the previous run of the same model on the same dataset (view case_changes).</div>'
  || '<table id="runs-summary"><thead><tr><th>Run</th><th>Model</th>'
  || '<th class="num">Cases</th><th class="num">Scored</th><th class="num">Inconclusive</th>'
  || '<th class="num">Mean score</th><th class="num">Pass rate</th>'
  || '<th class="num">Good-case pass</th><th class="num">Bad-case pass</th>'
  || '<th class="num">Regressed</th><th class="num">Fixed</th></tr></thead><tbody>'
  || group_concat(row, '') || '</tbody></table></section>'
FROM (
  SELECT '<tr data-run="' || r.run_h || '"><td><span class="mono">' || r.run_h || '</span>'
    || CASE WHEN r.day <> '' THEN '<div class="sub">' || r.when_text || '</div>' ELSE '' END
    || '</td><td>' || r.label_h
    || '</td><td class="num" data-k="cases">' || r.n_cases
    || '</td><td class="num" data-k="scored_cases">' || r.scored_cases
    || '</td><td class="num" data-k="inconclusive_cases">' || r.inconclusive_cases
    || '</td><td class="num" data-k="mean_score">' || r.mean_txt
    || '</td><td class="num" data-k="pass_rate">' || r.pass_txt
    || '</td><td class="num" data-k="good_case_pass_rate">' || r.good_txt
    || '</td><td class="num" data-k="bad_case_pass_rate">' || r.bad_txt
    || '</td><td class="num" data-k="regressed">'
    || CASE WHEN r.prev_run IS NULL THEN '—' ELSE
         (SELECT count(*) FROM case_changes AS x WHERE x.to_run = r.run_id AND x.change = 'regressed') END
    || '</td><td class="num" data-k="fixed">'
    || CASE WHEN r.prev_run IS NULL THEN '—' ELSE
         (SELECT count(*) FROM case_changes AS x WHERE x.to_run = r.run_id AND x.change = 'fixed') END
    || '</td></tr>' AS row
  FROM rep_run AS r ORDER BY r.slot)
HAVING count(*) > 0;

-- ---- regressions and fixes --------------------------------------------------------
SELECT '<section id="changes"><h2>Regressions and fixes since each run''s predecessor</h2>'
  || '<div class="sub">Each run against the previous run of the same model on the same dataset, case by case (view case_changes): regressed = passed before, fails now; fixed = the reverse; inconclusive = scored on one side only. Latest runs first.</div>'
  || coalesce((SELECT group_concat(block, '') FROM (
       SELECT '<div class="pair"><h3>' || t.label_h || ': <span class="mono">' || t.prev_h
         || '</span> → <span class="mono">' || t.run_h || '</span></h3>'
         || '<span class="counts">'
         || (SELECT count(*) FROM case_changes AS x WHERE x.to_run = t.run_id AND x.change = 'regressed')
         || ' regressed · '
         || (SELECT count(*) FROM case_changes AS x WHERE x.to_run = t.run_id AND x.change = 'fixed')
         || ' fixed · '
         || (SELECT count(*) FROM case_changes AS x WHERE x.to_run = t.run_id AND x.change = 'inconclusive')
         || ' inconclusive · '
         || (SELECT count(*) FROM case_changes AS x WHERE x.to_run = t.run_id AND x.change = 'unchanged')
         || ' unchanged</span></div>'
         || coalesce((SELECT '<table class="changes fixed" data-from="' || t.prev_h
              || '" data-to="' || t.run_h || '"><colgroup><col style="width:10%">'
              || '<col style="width:13%"><col style="width:12%"><col style="width:27%">'
              || '<col></colgroup><thead><tr><th>Case</th><th>Change</th>'
              || '<th class="num">Score</th><th>Before: reason</th>'
              || '<th>Now: reason and response</th></tr></thead><tbody>'
              || group_concat(row, '') || '</tbody></table>'
            FROM (
              SELECT '<tr data-id="' || tc.id_h || '" data-change="' || x.change
                || '"><td class="mono">' || tc.id_h || '</td><td><span class="badge '
                || x.change || '">' || x.change || '</span></td><td class="num score">'
                || fc.score_txt || ' → ' || tc.score_txt
                || '</td><td class="wrap reason-from">' || fc.reason_h
                || '</td><td class="wrap"><div class="reason-to">' || tc.reason_h || '</div>'
                || CASE WHEN tc.response_h <> '' THEN '<div class="resp">' || tc.response_h || '</div>'
                        ELSE '' END
                || '</td></tr>' AS row
              FROM case_changes AS x
              JOIN rep_case AS tc ON tc.run_id = x.to_run AND tc.id = x.id
              JOIN rep_case AS fc ON fc.run_id = x.from_run AND fc.id = x.id
              WHERE x.to_run = t.run_id AND x.change <> 'unchanged'
              ORDER BY CASE x.change WHEN 'regressed' THEN 0 WHEN 'fixed' THEN 1 ELSE 2 END,
                       tc.ord
              LIMIT 100)
            HAVING count(*) > 0),
            '<p class="empty">No case changed its verdict.</p>')
         -- a run that changed thousands of cases would make the page as long:
         -- the first hundred, and where the rest are
         || coalesce((SELECT '<p class="more" data-to="' || t.run_h || '">The first 100 of ' || count(*)
                || ' changed cases; all are in the view case_changes (to_run = '''
                || t.run_h || ''').</p>'
              FROM case_changes AS x WHERE x.to_run = t.run_id AND x.change <> 'unchanged'
              HAVING count(*) > 100), '') AS block
       FROM rep_run AS t WHERE t.prev_run IS NOT NULL
       ORDER BY t.slot DESC)),
     '<p class="empty">No run has a predecessor yet: import another run of the same model on the same dataset.</p>')
  || '</section>'
WHERE EXISTS (SELECT 1 FROM rep_run);

-- ---- worst cases --------------------------------------------------------------------
SELECT '<section id="worst"><h2>Worst cases</h2>'
  || '<div class="sub">The lowest scores below 0.5 in the latest run of each model (at most 12), with the reason and the response.</div>'
  || coalesce((SELECT '<table id="worst-cases" class="fixed"><colgroup>'
       || '<col style="width:15%"><col style="width:13%"><col style="width:26%">'
       || '<col style="width:7%"><col></colgroup>'
       || '<thead><tr><th>Model</th><th>Run</th><th>Case</th>'
       || '<th class="num">Score</th><th>Reason and response</th></tr></thead><tbody>'
       || group_concat(row, '') || '</tbody></table>'
     FROM (
       SELECT '<tr data-run="' || r.run_h || '" data-id="' || c.id_h || '"><td>'
         || r.label_h
         || '</td><td class="mono">' || r.run_short_h || '</td><td><span class="mono">'
         || c.id_h || '</span>'
         || CASE WHEN c.input_h <> '' THEN '<div class="sub wrap">' || c.input_h || '</div>' ELSE '' END
         || '</td><td class="num">' || c.score_txt || '</td><td class="wrap">'
         || '<div class="reason">' || c.reason_h || '</div>'
         || CASE WHEN c.response_h <> '' THEN '<div class="resp">' || c.response_h || '</div>'
                 ELSE '' END
         || '</td></tr>' AS row
       FROM rep_case AS c JOIN rep_run AS r USING (run_id)
       WHERE r.recency = 1 AND c.score < 0.5
       ORDER BY c.score, r.series_no, c.ord
       LIMIT 12)
     HAVING count(*) > 0),
     '<p class="empty">No case scored below 0.5 in the latest runs.</p>')
  || '</section>'
WHERE EXISTS (SELECT 1 FROM rep_run);

-- ---- inconclusive cases ---------------------------------------------------------------
SELECT '<section id="inconclusive"><h2>Inconclusive cases</h2>'
  || '<div class="sub">Cases with no score, by reason (they count in no rate). A case keeps the runner''s verdict when the import could not rescore it: no constraints for it, no response, or a response the JSON functions cut short.</div>'
  || '<table id="inconclusive-counts" class="fixed"><colgroup><col style="width:15%">'
  || '<col style="width:17%"><col style="width:12%"><col><col style="width:13%">'
  || '<col style="width:13%"></colgroup><thead><tr><th>Run</th><th>Model</th>'
  || '<th class="num">Inconclusive</th><th>Reasons</th>'
  || '<th class="num">Rescored by ifscore</th><th class="num">Runner''s score kept</th>'
  || '</tr></thead><tbody>' || group_concat(row, '') || '</tbody></table></section>'
FROM (
  SELECT '<tr data-run="' || r.run_h || '"><td class="mono">' || r.run_h || '</td><td>'
    || r.label_h
    || '</td><td class="num" data-k="inconclusive_cases">' || r.inconclusive_cases
    || '</td><td class="wrap">'
    || coalesce((SELECT group_concat('<div>' || n || ' × ' || reason_h || '</div>', '')
                 FROM (SELECT reason_h, count(*) AS n FROM rep_case AS c
                       WHERE c.run_id = r.run_id AND c.score IS NULL
                       GROUP BY reason_h ORDER BY n DESC, reason_h)), '—')
    || '</td><td class="num" data-k="rescored">' || r.n_regraded
    || '</td><td class="num" data-k="kept">' || (r.n_cases - r.n_regraded)
    || CASE WHEN r.n_not_rescorable > 0
            THEN '<div class="sub">' || r.n_not_rescorable || ' not rescorable</div>'
            ELSE '' END
    || '</td></tr>' AS row
  FROM rep_run AS r ORDER BY r.slot)
HAVING count(*) > 0;

-- ---- where each run came from -----------------------------------------------------------
SELECT '<section id="provenance"><h2>Where each run came from</h2>'
  || '<div class="sub">As the runner recorded it and as sql/import.sql read it (table runs).</div>'
  || '<table id="runs-provenance" class="fixed"><colgroup><col style="width:11%">'
  || '<col style="width:10%"><col style="width:13%"><col style="width:11%">'
  || '<col style="width:15%"><col style="width:13%"><col><col style="width:8%">'
  || '</colgroup><thead><tr><th>Run</th><th>Completed</th><th>Model</th>'
  || '<th>Dataset</th><th>Agent endpoint</th><th>Pipeline</th><th>Results file</th>'
  || '<th class="num">Dataset size</th></tr></thead><tbody>'
  || group_concat(row, '') || '</tbody></table></section>'
FROM (
  SELECT '<tr data-run="' || r.run_h || '"><td class="mono">' || r.run_h
    || '</td><td>' || CASE WHEN r.when_text <> '' THEN r.when_text ELSE '—' END
    || '</td><td>' || r.model_h || '</td><td class="wrap">'
    || CASE WHEN r.dataset_h <> '' THEN r.dataset_b ELSE '—' END
    || '</td><td class="wrap mono">' || CASE WHEN r.endpoint_h <> '' THEN r.endpoint_b ELSE '—' END
    || '</td><td class="wrap">' || CASE WHEN r.pipeline_h <> '' THEN r.pipeline_b ELSE '—' END
    || '</td><td class="wrap mono">' || CASE WHEN r.file_h <> '' THEN r.file_b ELSE '—' END
    || '</td><td class="num">' || r.total_h || '</td></tr>' AS row
  -- Paths and URLs may break after a '/' or '_' and before a '.' (not between
  -- the two slashes of a URL), rather than wherever the column ends.
  FROM (SELECT *,
               replace(replace(replace(replace(dataset_h, '/', '/<wbr>'), '_', '_<wbr>'), '.', '<wbr>.'), '/<wbr>/<wbr>', '//<wbr>') AS dataset_b,
               replace(replace(replace(replace(endpoint_h, '/', '/<wbr>'), '_', '_<wbr>'), '.', '<wbr>.'), '/<wbr>/<wbr>', '//<wbr>') AS endpoint_b,
               replace(replace(replace(replace(pipeline_h, '/', '/<wbr>'), '_', '_<wbr>'), '.', '<wbr>.'), '/<wbr>/<wbr>', '//<wbr>') AS pipeline_b,
               replace(replace(replace(replace(file_h, '/', '/<wbr>'), '_', '_<wbr>'), '.', '<wbr>.'), '/<wbr>/<wbr>', '//<wbr>') AS file_b
        FROM rep_run) AS r
  ORDER BY r.slot)
HAVING count(*) > 0;

SELECT '<footer>Written by sql/report.sql from the tables runs, cases and checks and the views run_summary, case_changes and kind_summary'
  || coalesce(' · latest run completed ' || (SELECT max(nullif(when_text, '')) FROM rep_run), '')
  || '.</footer>
</main>
</body>
</html>';

DROP TABLE temp.rep_kind_run;
DROP TABLE temp.rep_legend;
DROP TABLE temp.rep_case;
DROP TABLE temp.rep_run;
