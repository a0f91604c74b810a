// The toolexec explorer page. It talks only to the REST endpoints relative to
// the page's own address (and, when the host turned it on, to the MCP
// endpoint on the same origin), and renders everything a server sends (tool
// descriptions, schemas, results, progress and log messages, input requests)
// as text: no server data ever reaches innerHTML or an attribute that could
// run script.
(function () {
  'use strict';

  var cfg = JSON.parse(document.getElementById('explorer-config').textContent);
  var base = location.pathname.charAt(location.pathname.length - 1) === '/' ? location.pathname : location.pathname + '/';
  var $ = function (id) { return document.getElementById(id); };

  // Bounds on the work one render does, whatever the schema or the answer:
  // past them the rest is left to the JSON editor or the raw response.
  var MAX_FIELDS = 300;        // form fields built by one render
  var MAX_STEPS = 20000;       // schema resolution steps of one render
  var MAX_DEPTH = 24;          // nesting of one form
  var MAX_OPTIONS = 500;       // choices of one select
  var MAX_TREE = 2000;         // nodes of one structuredContent tree
  var MAX_LOGS = 500;          // log lines kept for one call
  var MAX_HISTORY = 50;        // calls kept in the history
  var MAX_EVENT = 16 << 20;    // bytes of one server-sent event
  var MAX_PRETTY = 1 << 20;    // characters of a text block pretty-printed as JSON
  var MCP_VERSION = '2026-07-28';

  var state = {
    tools: [],          // GET tools
    meta: {},           // name -> {title, version}, from the page's own endpoint
    current: null,      // GET tools/{name}
    schema: null,       // its inputSchema
    root: null,         // the form's root field
    seq: 0,             // guards against answers that arrive after another tool was chosen
    listSeq: 0,         // the same for the tool list
    fieldSeq: 0,
    call: null,         // the call in flight: {controller, ...}
    last: null,         // the last answer shown, for Copy result
    history: []
  };

  // ---- small DOM helpers: text only --------------------------------------

  function el(tag, props) {
    var node = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (k) {
        var v = props[k];
        if (v === undefined || v === null || v === false) { return; }
        if (k === 'text') { node.textContent = String(v); }
        else if (k === 'className') { node.className = v; }
        else if (k === 'dataset') { Object.keys(v).forEach(function (d) { node.dataset[d] = v[d]; }); }
        else if (v === true) { node.setAttribute(k, ''); }
        else { node.setAttribute(k, String(v)); }
      });
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === undefined || c === null || c === false) { continue; }
      node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    }
    return node;
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }
  function show(node, on) { node.hidden = !on; }
  function url(path) { return base + path; }
  function toolURL(name, action) {
    return url('tools/' + encodeURIComponent(name) + (action ? '/' + action : ''));
  }
  function isObject(v) { return v !== null && typeof v === 'object' && !Array.isArray(v); }
  function escapePointer(k) { return String(k).replace(/~/g, '~0').replace(/\//g, '~1'); }
  function safeHref(href) {
    try {
      var u = new URL(href, location.href);
      return (u.protocol === 'http:' || u.protocol === 'https:') ? u.href : null;
    } catch (e) { return null; }
  }
  function pretty(v) {
    try { return JSON.stringify(v, null, 2); } catch (e) { return String(v); }
  }
  function storage(kind) {
    try { return kind === 'local' ? window.localStorage : window.sessionStorage; } catch (e) { return null; }
  }

  // ---- header: title, project link, theme, token --------------------------

  document.title = cfg.title;
  $('title').textContent = cfg.title;
  if (cfg.projectUrl && safeHref(cfg.projectUrl)) {
    var project = $('project');
    project.href = safeHref(cfg.projectUrl);
    project.textContent = cfg.projectLabel || cfg.projectUrl;
    show(project, true);
  }
  if (cfg.openapi) {
    var doc = $('openapi');
    doc.href = url(cfg.openapi);
    doc.title = 'The OpenAPI 3.1 document of this REST API (also ' + cfg.openapi.replace(/json$/, 'yaml') + ', and llms.txt)';
    show(doc, true);
  }

  // The theme follows the system unless the user picks one; the choice is
  // remembered (it is no secret).
  var themeKey = 'toolexec-explorer-theme';
  var themes = ['auto', 'light', 'dark'];
  function applyTheme(t) {
    if (t === 'light' || t === 'dark') { document.documentElement.dataset.theme = t; }
    else { delete document.documentElement.dataset.theme; t = 'auto'; }
    $('theme').textContent = 'Theme: ' + t;
    return t;
  }
  var themeNow = applyTheme((storage('local') && storage('local').getItem(themeKey)) || 'auto');
  $('theme').addEventListener('click', function () {
    themeNow = applyTheme(themes[(themes.indexOf(themeNow) + 1) % themes.length]);
    var s = storage('local');
    if (s) { try { s.setItem(themeKey, themeNow); } catch (e) { /* full or denied */ } }
  });

  var tokenKey = 'toolexec-explorer-token:' + base;
  var historyKey = 'toolexec-explorer-history:' + base;
  function remembering() { return cfg.auth && $('remember').checked; }
  function tokenState() {
    var set = !!$('token').value;
    $('token-state').textContent = set ? 'token set' : 'no token';
    $('token-state').classList.toggle('good', set);
  }
  if (cfg.auth) {
    show($('auth'), true);
    var st = storage();
    var kept = st && st.getItem(tokenKey);
    if (kept) { $('token').value = kept; $('remember').checked = true; }
    tokenState();
    var keep = function () {
      var s = storage();
      if (!s) { return; }
      if (remembering() && $('token').value) { s.setItem(tokenKey, $('token').value); }
      else { s.removeItem(tokenKey); }
      saveHistory();
    };
    // A new token may show other tools (per-caller lists): list them again
    // once the user stops typing.
    var relist = null;
    $('token').addEventListener('input', function () {
      keep();
      tokenState();
      clearTimeout(relist);
      relist = setTimeout(function () { loadList(true); }, 350);
    });
    $('remember').addEventListener('change', keep);
  }

  // ---- requests ----------------------------------------------------------

  // withToken adds the bearer token, when the host has an auth hook and the
  // user typed one: calls need it, and with per-caller tool lists the lists,
  // details and validation answer according to it too.
  function withToken(headers) {
    if (cfg.auth && $('token').value) {
      headers.Authorization = 'Bearer ' + $('token').value;
    }
    return headers;
  }

  function getJSON(path) {
    return fetch(url(path), { headers: withToken({ Accept: 'application/json' }), credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        return r.text().then(function (t) {
          var body = null;
          try { body = JSON.parse(t); } catch (e) { /* not JSON */ }
          if (!r.ok) { throw new Error((body && body.error) || ('HTTP ' + r.status)); }
          return body;
        });
      });
  }

  function postTo(target, text, signal) {
    var headers = withToken({ 'Content-Type': 'application/json', Accept: 'application/json' });
    var started = performance.now();
    return fetch(target, { method: 'POST', headers: headers, body: text, credentials: 'same-origin', cache: 'no-store', signal: signal })
      .then(function (r) {
        return r.text().then(function (t) {
          var body;
          try { body = JSON.parse(t); } catch (e) { body = undefined; }
          return { status: r.status, text: t, body: body, ms: performance.now() - started };
        });
      });
  }

  // ---- the tool list -----------------------------------------------------

  var annotationWords = {
    readOnlyHint: ['read-only', 'writes'],
    destructiveHint: ['destructive', 'non-destructive'],
    idempotentHint: ['idempotent', 'not idempotent'],
    openWorldHint: ['open world', 'closed world']
  };

  function annotationBadges(ann) {
    var out = [];
    if (!isObject(ann)) { return out; }
    Object.keys(ann).forEach(function (k) {
      if (k === 'title') { return; }
      var v = ann[k];
      var words = annotationWords[k];
      var text = words && typeof v === 'boolean' ? words[v ? 0 : 1] : k + ': ' + JSON.stringify(v);
      out.push(el('li', { className: 'badge' + (k === 'destructiveHint' && v ? ' warn' : ''), title: k + ': ' + JSON.stringify(v), text: text }));
    });
    return out;
  }

  function titleOf(tool) {
    var m = state.meta[tool.name];
    return (typeof tool.title === 'string' && tool.title) || (m && m.title) || (isObject(tool.annotations) && tool.annotations.title) || '';
  }

  function renderList() {
    var q = $('filter').value.trim().toLowerCase();
    var list = $('tools');
    clear(list);
    var shown = 0;
    state.tools.forEach(function (t) {
      if (!isObject(t) || typeof t.name !== 'string') { return; }
      var title = titleOf(t);
      var m = state.meta[t.name] || {};
      var hay = (t.name + '\n' + title + '\n' + (t.description || '')).toLowerCase();
      if (q && hay.indexOf(q) < 0) { return; }
      shown++;
      var btn = el('button', { type: 'button', className: 'tool', dataset: { name: t.name } },
        el('span', { className: 'tool-line' },
          el('strong', { className: 'name', text: t.name }),
          m.version ? el('span', { className: 'badge', text: 'v' + m.version }) : null),
        title ? el('span', { className: 'title', text: title }) : null,
        t.description ? el('span', { className: 'desc', text: t.description }) : null);
      var badges = annotationBadges(t.annotations);
      if (badges.length) {
        var ul = el('ul', { className: 'badges' });
        badges.forEach(function (b) { ul.appendChild(b); });
        btn.appendChild(ul);
      }
      if (state.current && state.current.name === t.name) { btn.setAttribute('aria-current', 'true'); }
      btn.addEventListener('click', function () { selectTool(t.name, true); });
      list.appendChild(el('li', null, btn));
    });
    $('list-status').textContent = state.tools.length === 0 ? 'No tools to show.'
      : (q ? shown + ' of ' + state.tools.length + ' tools' : state.tools.length + ' tools');
  }

  // loadList lists the tools; again is set when the token changed or the
  // user asked for it, and then a tool that could not be loaded before is
  // tried again.
  function loadList(again) {
    var seq = ++state.listSeq;
    $('list-status').textContent = 'Loading tools...';
    var meta = getJSON(cfg.metaPath).catch(function () { return []; });
    return Promise.all([getJSON('tools'), meta]).then(function (res) {
      if (seq !== state.listSeq) { return; }
      state.tools = Array.isArray(res[0]) ? res[0] : [];
      state.meta = {};
      (Array.isArray(res[1]) ? res[1] : []).forEach(function (m) {
        if (m && typeof m.name === 'string') { state.meta[m.name] = m; }
      });
      renderList();
      if (again && state.current && state.current.failed && state.tools.some(function (t) { return t && t.name === state.current.name; })) {
        selectTool(state.current.name, false);
      }
    }, function (err) {
      if (seq !== state.listSeq) { return; }
      $('list-status').textContent = 'Could not load the tools: ' + err.message;
    });
  }

  $('filter').addEventListener('input', renderList);
  $('refresh').addEventListener('click', function () { loadList(true); });
  // Arrow keys move between tools in the list.
  $('tools').addEventListener('keydown', function (ev) {
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') { return; }
    var buttons = Array.prototype.slice.call($('tools').querySelectorAll('button.tool'));
    var i = buttons.indexOf(document.activeElement);
    if (i < 0) { return; }
    var next = buttons[i + (ev.key === 'ArrowDown' ? 1 : -1)];
    if (next) { next.focus(); ev.preventDefault(); }
  });

  // ---- schema handling ---------------------------------------------------
  //
  // Every function here takes the render's context r: {root, fields, steps},
  // the schema $refs resolve against and the work done so far. Past
  // MAX_STEPS or MAX_DEPTH a schema resolves to "too deep", which the form
  // shows as a JSON editor.

  function newRender(root) { return { root: root, fields: 0, steps: 0 }; }

  function lookupPointer(root, ref) {
    if (ref === '#') { return root; }
    if (ref.indexOf('#/') !== 0) { return undefined; }
    var cur = root;
    var parts = ref.slice(2).split('/');
    for (var i = 0; i < parts.length; i++) {
      var key;
      try { key = decodeURIComponent(parts[i]); } catch (e) { return undefined; }
      key = key.replace(/~1/g, '/').replace(/~0/g, '~');
      if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, key)) { return undefined; }
      cur = cur[key];
    }
    return cur;
  }

  function mergeObjects(a, b) {
    var out = {};
    Object.keys(a).forEach(function (k) { out[k] = a[k]; });
    Object.keys(b).forEach(function (k) {
      if (k === 'properties' && isObject(out.properties) && isObject(b.properties)) {
        out.properties = mergeObjects(out.properties, b.properties);
      } else if (k === 'required' && Array.isArray(out.required) && Array.isArray(b.required)) {
        out.required = out.required.concat(b.required);
      } else {
        out[k] = b[k];
      }
    });
    return out;
  }

  // resolve follows local $refs and folds allOf into one schema.
  function resolve(s, depth, r) {
    if (s === true || s === undefined || s === null) { return {}; }
    if (!isObject(s)) { return { not: {} }; }
    if (depth > MAX_DEPTH || ++r.steps > MAX_STEPS) { return { __tooDeep: true }; }
    var out = s;
    if (typeof out.$ref === 'string') {
      var target = lookupPointer(r.root, out.$ref);
      var rest = mergeObjects({}, out);
      delete rest.$ref;
      out = mergeObjects(resolve(target, depth + 1, r), rest);
    }
    if (Array.isArray(out.allOf)) {
      var merged = mergeObjects({}, out);
      delete merged.allOf;
      for (var i = 0; i < out.allOf.length; i++) {
        merged = mergeObjects(merged, resolve(out.allOf[i], depth + 1, r));
        if (merged.__tooDeep) { break; }
      }
      out = merged;
    }
    return out;
  }

  function kindOf(s) {
    if (s.__tooDeep) { return 'json'; }
    if (s.const !== undefined) { return 'const'; }
    if (Array.isArray(s.enum) && s.enum.length) { return s.enum.length > MAX_OPTIONS ? 'json' : 'enum'; }
    if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) { return 'choice'; }
    var t = s.type;
    if (Array.isArray(t)) {
      // A type list is a choice, null included: null is a value to send.
      if (t.length === 1) { t = t[0]; } else { return t.length ? 'choice' : 'json'; }
    }
    if (typeof t === 'string') {
      if (t === 'string' || t === 'number' || t === 'integer' || t === 'boolean' || t === 'object' || t === 'array' || t === 'null') { return t; }
      return 'json';
    }
    if (isObject(s.properties)) { return 'object'; }
    if (s.items !== undefined || s.prefixItems !== undefined) { return 'array'; }
    return 'json';
  }

  function variantsOf(s, depth, r) {
    var list = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : null;
    var baseSchema = mergeObjects({}, s);
    delete baseSchema.oneOf;
    delete baseSchema.anyOf;
    if (!list) {
      // a type list such as ["string", "integer", "null"]
      delete baseSchema.type;
      return s.type.slice(0, MAX_OPTIONS).map(function (t) { return mergeObjects(baseSchema, { type: t }); });
    }
    delete baseSchema.type;
    delete baseSchema.title;
    return list.slice(0, MAX_OPTIONS).map(function (v) { return mergeObjects(baseSchema, resolve(v, depth + 1, r)); });
  }

  function variantLabel(v, i) {
    if (v.title) { return String(v.title); }
    if (v.const !== undefined) { return JSON.stringify(v.const); }
    if (typeof v.type === 'string') {
      if (v.type === 'object' && isObject(v.properties)) { return 'object (' + Object.keys(v.properties).join(', ') + ')'; }
      return v.type;
    }
    return 'option ' + (i + 1);
  }

  // matches says roughly whether value fits variant s, to pick the choice a
  // value shows up in.
  function matches(s, value, r) {
    var k = kindOf(s);
    switch (k) {
      case 'const': return JSON.stringify(s.const) === JSON.stringify(value);
      case 'enum': return s.enum.some(function (e) { return JSON.stringify(e) === JSON.stringify(value); });
      case 'null': return value === null;
      case 'string': return typeof value === 'string';
      case 'number': return typeof value === 'number';
      case 'integer': return typeof value === 'number' && Math.floor(value) === value;
      case 'boolean': return typeof value === 'boolean';
      case 'array': return Array.isArray(value);
      case 'object':
        if (!isObject(value)) { return false; }
        var req = Array.isArray(s.required) ? s.required : [];
        if (!req.every(function (q) { return Object.prototype.hasOwnProperty.call(value, q); })) { return false; }
        var props = isObject(s.properties) ? s.properties : {};
        return Object.keys(props).every(function (p) {
          var ps = resolve(props[p], 1, r);
          return !(p in value) || ps.const === undefined || JSON.stringify(ps.const) === JSON.stringify(value[p]);
        });
      case 'choice': return value !== undefined;
      default: return value !== null || s.__tooDeep === true;
    }
  }

  // ---- form fields -------------------------------------------------------
  //
  // makeField returns {node, get}: get() gives the field's JSON value, or
  // undefined when the field is empty and so left out of the arguments.
  // Every field's wrapper carries the JSON Pointer of its value, which is
  // how validation failures find their field. opt.r is the render: past
  // MAX_FIELDS fields, a field is a small JSON editor.

  function makeField(schema, value, opt) {
    var r = opt.r;
    var depth = opt.depth || 0;
    var s = resolve(schema, depth, r);
    if (value === undefined && s.default !== undefined && !opt.noDefault) { value = s.default; }
    var kind = ++r.fields > MAX_FIELDS ? 'json' : kindOf(s);
    var id = 'f' + (++state.fieldSeq);
    var wrap = el('div', { className: 'field field-' + kind, dataset: { pointer: opt.pointer } });
    var group = kind === 'object' || kind === 'array';
    var labelText = opt.label;
    if (labelText !== undefined) {
      var label = el(group ? 'span' : 'label', { className: 'label', 'for': group ? null : id, id: id + '-label' },
        el('span', { className: 'key', text: labelText }),
        s.title && s.title !== labelText ? el('span', { className: 'muted', text: ' ' + s.title }) : null,
        opt.required ? el('span', { className: 'req', title: 'required', 'aria-hidden': 'true', text: ' *' }) : null,
        opt.required ? el('span', { className: 'visually-hidden', text: ' (required)' }) : null);
      wrap.appendChild(label);
    }
    var hint = hintFor(s, id);
    var err = el('p', { className: 'field-error', id: id + '-error', hidden: true });
    var describedBy = (hint ? id + '-hint ' : '') + id + '-error';

    var inner = builders[kind](s, value, opt, id, describedBy);
    if (hint && !group) { wrap.appendChild(hint); }
    wrap.appendChild(inner.node);
    if (hint && group) {
      var legend = inner.node.querySelector(':scope > legend');
      inner.node.insertBefore(hint, legend ? legend.nextSibling : inner.node.firstChild);
    }
    wrap.appendChild(err);
    return { node: wrap, get: inner.get };
  }

  // bounds reads the numeric bounds: 2020-12's exclusiveMinimum is a number, draft
  // 4's a boolean beside minimum.
  function bounds(s) {
    var b = { min: undefined, max: undefined, exMin: false, exMax: false };
    if (typeof s.minimum === 'number') { b.min = s.minimum; b.exMin = s.exclusiveMinimum === true; }
    if (typeof s.exclusiveMinimum === 'number' && (b.min === undefined || s.exclusiveMinimum >= b.min)) { b.min = s.exclusiveMinimum; b.exMin = true; }
    if (typeof s.maximum === 'number') { b.max = s.maximum; b.exMax = s.exclusiveMaximum === true; }
    if (typeof s.exclusiveMaximum === 'number' && (b.max === undefined || s.exclusiveMaximum <= b.max)) { b.max = s.exclusiveMaximum; b.exMax = true; }
    return b;
  }

  function hintFor(s, id) {
    var parts = [];
    if (s.description) { parts.push(String(s.description)); }
    if (s.format) { parts.push('format: ' + s.format); }
    var b = bounds(s);
    if (b.min !== undefined) { parts.push((b.exMin ? 'greater than ' : 'minimum ') + b.min); }
    if (b.max !== undefined) { parts.push((b.exMax ? 'less than ' : 'maximum ') + b.max); }
    if (s.minLength !== undefined) { parts.push('at least ' + s.minLength + ' characters'); }
    if (s.maxLength !== undefined) { parts.push('at most ' + s.maxLength + ' characters'); }
    if (s.pattern) { parts.push('pattern ' + s.pattern); }
    if (s.minItems !== undefined) { parts.push('at least ' + s.minItems + ' items'); }
    if (s.maxItems !== undefined) { parts.push('at most ' + s.maxItems + ' items'); }
    if (Array.isArray(s.enum) && s.enum.length > MAX_OPTIONS) { parts.push('one of ' + s.enum.length + ' values'); }
    if (s.__tooDeep) { parts.push('nested too deeply (or too large) for a form: type its JSON'); }
    return parts.length ? el('p', { className: 'hint', id: id + '-hint', text: parts.join(' · ') }) : null;
  }

  function control(tag, props, opt, id, describedBy) {
    props.id = id;
    props['aria-describedby'] = describedBy;
    if (opt.required) { props['aria-required'] = 'true'; }
    if (opt.label === undefined && opt.itemLabel) { props['aria-label'] = opt.itemLabel; }
    return el(tag, props);
  }

  function childOpt(opt, extra) {
    var o = { r: opt.r, depth: (opt.depth || 0) + 1, noDefault: opt.noDefault };
    Object.keys(extra).forEach(function (k) { o[k] = extra[k]; });
    return o;
  }

  // isLazy says whether an optional property's field waits for the user to
  // add it: an object, which may nest (or recurse) without end. Arrays wait
  // already: they start empty.
  function isLazy(schema, opt) {
    var s = resolve(schema, (opt.depth || 0) + 1, opt.r);
    return kindOf(s) === 'object' && s.default === undefined;
  }

  var builders = {
    string: function (s, value, opt, id, describedBy) {
      var type = 'text';
      var fmt = s.format;
      if (fmt === 'email') { type = 'email'; }
      else if (fmt === 'uri' || fmt === 'url' || fmt === 'iri') { type = 'url'; }
      else if (fmt === 'date') { type = 'date'; }
      else if (fmt === 'password' || s.writeOnly === true) { type = 'password'; }
      var long = (typeof s.maxLength !== 'number' || s.maxLength > 200) && (fmt === 'textarea' || s.contentMediaType);
      var placeholder = fmt === 'date-time' ? '2026-01-31T12:00:00Z' : fmt === 'time' ? '12:00:00Z' : fmt === 'uuid' ? '00000000-0000-0000-0000-000000000000' : null;
      var input = control(long ? 'textarea' : 'input', {
        type: long ? null : type, placeholder: placeholder, autocomplete: 'off', spellcheck: 'false',
        minlength: s.minLength, maxlength: s.maxLength
      }, opt, id, describedBy);
      if (typeof value === 'string') { input.value = value; }
      else if (value !== undefined && value !== null) { input.value = JSON.stringify(value); }
      return {
        node: input,
        get: function () { return input.value === '' && !opt.inArray ? undefined : input.value; }
      };
    },
    number: function (s, value, opt, id, describedBy) { return numberField(s, value, opt, id, describedBy, false); },
    integer: function (s, value, opt, id, describedBy) { return numberField(s, value, opt, id, describedBy, true); },
    boolean: function (s, value, opt, id, describedBy) {
      if (opt.required || opt.inArray) {
        var box = control('input', { type: 'checkbox' }, opt, id, describedBy);
        box.checked = value === true;
        return { node: box, get: function () { return box.checked; } };
      }
      var sel = control('select', {}, opt, id, describedBy);
      [['', '(not set)'], ['true', 'true'], ['false', 'false']].forEach(function (o) {
        sel.appendChild(el('option', { value: o[0], text: o[1] }));
      });
      sel.value = value === true ? 'true' : value === false ? 'false' : '';
      return { node: sel, get: function () { return sel.value === '' ? undefined : sel.value === 'true'; } };
    },
    'null': function (s, value, opt, id, describedBy) {
      if (opt.required || opt.inArray) {
        return { node: el('output', { id: id, className: 'const', text: 'null' }), get: function () { return null; } };
      }
      var sel = control('select', {}, opt, id, describedBy);
      sel.appendChild(el('option', { value: '', text: '(not set)' }));
      sel.appendChild(el('option', { value: 'null', text: 'null' }));
      sel.value = value === null ? 'null' : '';
      return { node: sel, get: function () { return sel.value === 'null' ? null : undefined; } };
    },
    enum: function (s, value, opt, id, describedBy) {
      var sel = control('select', {}, opt, id, describedBy);
      sel.appendChild(el('option', { value: '', text: opt.required ? '(choose)' : '(not set)' }));
      s.enum.forEach(function (v, i) {
        sel.appendChild(el('option', { value: String(i), text: typeof v === 'string' ? v : JSON.stringify(v) }));
      });
      var at = s.enum.findIndex(function (v) { return JSON.stringify(v) === JSON.stringify(value); });
      sel.value = at >= 0 ? String(at) : '';
      return { node: sel, get: function () { return sel.value === '' ? undefined : s.enum[Number(sel.value)]; } };
    },
    'const': function (s, value, opt, id) {
      var out = el('output', { id: id, className: 'const', text: JSON.stringify(s.const) });
      return { node: out, get: function () { return s.const; } };
    },
    json: function (s, value, opt, id, describedBy) {
      var ta = control('textarea', { rows: 3, spellcheck: 'false', className: 'json', placeholder: 'any JSON value' }, opt, id, describedBy);
      if (value !== undefined) { ta.value = pretty(value); }
      return {
        node: ta,
        get: function () {
          if (ta.value.trim() === '') { return opt.inArray ? null : undefined; }
          try { return JSON.parse(ta.value); } catch (e) { return undefined; }
        }
      };
    },
    object: function (s, value, opt, id) {
      var isRoot = opt.pointer === '';
      var box = isRoot ? el('div', { className: 'object root' }) : el('fieldset', { className: 'object', 'aria-labelledby': id + '-label' });
      if (!isRoot) { box.appendChild(el('legend', { className: 'visually-hidden', text: opt.label || opt.itemLabel || 'object' })); }
      var props = isObject(s.properties) ? s.properties : {};
      var required = Array.isArray(s.required) ? s.required : [];
      var current = isObject(value) ? value : {};
      var children = [];
      var extras = {};
      var keys = Object.keys(props);
      var left = 0;
      keys.forEach(function (key) {
        var has = Object.prototype.hasOwnProperty.call(current, key);
        if (opt.r.fields >= MAX_FIELDS || opt.r.steps >= MAX_STEPS) {
          // Past the render's budget: the property is left to the JSON
          // editor, its value kept as it is.
          left++;
          if (has) { extras[key] = current[key]; }
          return;
        }
        var req = required.indexOf(key) >= 0;
        var child;
        var co = childOpt(opt, { label: key, required: req, pointer: opt.pointer + '/' + escapePointer(key) });
        if (!req && !has && isLazy(props[key], opt)) {
          child = lazyField(props[key], co);
        } else {
          child = makeField(props[key], current[key], co);
        }
        children.push([key, child]);
        box.appendChild(child.node);
      });
      if (left) {
        box.appendChild(el('p', { className: 'muted', text: left + (left === 1 ? ' more property is' : ' more properties are') + ' too many for the form: edit them in the JSON.' }));
      }
      if (!keys.length) {
        box.appendChild(el('p', { className: 'muted', text: isRoot ? 'No declared arguments: the JSON editor takes any.' : 'No declared properties: edit them in the JSON.' }));
      }
      // Keys the schema does not declare (typed in the JSON editor) are kept.
      Object.keys(current).forEach(function (k) { if (!Object.prototype.hasOwnProperty.call(props, k)) { extras[k] = current[k]; } });
      return {
        node: box,
        get: function () {
          var out = {};
          Object.keys(extras).forEach(function (k) { out[k] = extras[k]; });
          children.forEach(function (c) {
            var v = c[1].get();
            if (v !== undefined) { out[c[0]] = v; }
          });
          if (isRoot || opt.required || opt.inArray || opt.added || Object.keys(out).length) { return out; }
          return undefined;
        }
      };
    },
    array: function (s, value, opt, id) {
      var box = el('fieldset', { className: 'array', 'aria-labelledby': id + '-label' });
      box.appendChild(el('legend', { className: 'visually-hidden', text: opt.label || opt.itemLabel || 'list' }));
      var list = el('ol', { className: 'items' });
      var more = el('p', { className: 'muted', hidden: true });
      var add = el('button', { type: 'button', className: 'small', text: 'Add item', 'aria-label': 'Add item to ' + (opt.label || opt.itemLabel || 'list') });
      box.appendChild(list);
      box.appendChild(more);
      box.appendChild(add);
      var items = [];
      var touched = Array.isArray(value);
      function itemSchema(i) {
        if (Array.isArray(s.prefixItems) && i < s.prefixItems.length) { return s.prefixItems[i]; }
        if (Array.isArray(s.items)) { return s.items[i] !== undefined ? s.items[i] : s.additionalItems; }
        return s.items;
      }
      // render shows values, each item with its own field while the
      // render's budget lasts, the rest kept as they are for the JSON.
      function render(values, r) {
        clear(list);
        var kept = 0;
        items = values.map(function (v, i) {
          if (r.fields >= MAX_FIELDS || r.steps >= MAX_STEPS) {
            kept++;
            return { get: function () { return v; } };
          }
          var f = makeField(itemSchema(i), v, {
            r: r, pointer: opt.pointer + '/' + i, inArray: true, depth: (opt.depth || 0) + 1,
            itemLabel: (opt.label || 'item') + ' ' + (i + 1), noDefault: v !== undefined
          });
          var remove = el('button', { type: 'button', className: 'small remove', 'aria-label': 'Remove item ' + (i + 1), text: 'Remove' });
          remove.addEventListener('click', function () {
            var vals = items.map(function (it) { return it.get(); });
            vals.splice(i, 1);
            render(vals, newRender(r.root));
            changed();
            (list.querySelector('button.remove') || add).focus();
          });
          list.appendChild(el('li', { className: 'item' }, f.node, remove));
          return f;
        });
        more.textContent = kept ? kept + (kept === 1 ? ' more item is' : ' more items are') + ' too many for the form: edit them in the JSON.' : '';
        show(more, kept > 0);
      }
      render(Array.isArray(value) ? value : [], opt.r);
      add.addEventListener('click', function () {
        touched = true;
        var vals = items.map(function (it) { return it.get(); });
        vals.push(undefined);
        render(vals, newRender(opt.r.root));
        changed();
        var inputs = list.lastChild && list.lastChild.querySelector('input, select, textarea, button');
        if (inputs) { inputs.focus(); }
      });
      return {
        node: box,
        get: function () {
          var out = items.map(function (it) { return it.get(); }).map(function (v) { return v === undefined ? null : v; });
          if (out.length || touched || opt.required || opt.inArray) { return out; }
          return undefined;
        }
      };
    },
    choice: function (s, value, opt, id, describedBy) {
      var variants = variantsOf(s, opt.depth || 0, opt.r);
      var box = el('div', { className: 'choice' });
      var sel = control('select', { className: 'choice-select' }, opt, id, describedBy);
      if (!opt.required && !opt.inArray) { sel.appendChild(el('option', { value: '', text: '(not set)' })); }
      variants.forEach(function (v, i) { sel.appendChild(el('option', { value: String(i), text: variantLabel(v, i) })); });
      var holder = el('div', { className: 'choice-body' });
      box.appendChild(sel);
      box.appendChild(holder);
      var inner = null;
      var r = opt.r;
      function build(i, v) {
        clear(holder);
        inner = null;
        if (i < 0) { return; }
        inner = makeField(variants[i], v, {
          r: r, pointer: opt.pointer, required: true, depth: (opt.depth || 0) + 1,
          itemLabel: (opt.label || opt.itemLabel || 'value') + ' (' + variantLabel(variants[i], i) + ')'
        });
        // The chosen variant's field shares this field's pointer; the outer
        // wrapper already names it, so the inner one is not a target.
        delete inner.node.dataset.pointer;
        holder.appendChild(inner.node);
      }
      var start = -1;
      if (value !== undefined) {
        start = variants.findIndex(function (v) { return matches(v, value, r); });
      } else if (opt.required || opt.inArray) {
        start = 0;
      }
      sel.value = start >= 0 ? String(start) : '';
      build(start, start >= 0 ? value : undefined);
      sel.addEventListener('change', function () {
        r = newRender(r.root);
        build(sel.value === '' ? -1 : Number(sel.value), undefined);
        changed();
      });
      return { node: box, get: function () { return inner ? inner.get() : undefined; } };
    }
  };

  // lazyField is an optional object property shown as a button: its
  // fields are built when the user adds it, one level at a time, so a
  // schema that nests or recurses costs nothing until it is used.
  function lazyField(schema, opt) {
    var wrap = el('div', { className: 'field-lazy', dataset: { lazy: opt.pointer } });
    var inner = null;
    function collapsed() {
      clear(wrap);
      inner = null;
      wrap.dataset.pointer = opt.pointer;
      var add = el('button', { type: 'button', className: 'small add', text: 'Add ' + opt.label, 'aria-label': 'Add ' + opt.label + ' (optional object)' });
      wrap.appendChild(el('div', { className: 'lazy' }, el('span', { className: 'key', text: opt.label }), add));
      add.addEventListener('click', function () {
        expanded();
        changed();
        var first = wrap.querySelector('input, select, textarea, button');
        if (first) { first.focus(); }
      });
    }
    function expanded() {
      clear(wrap);
      var o = {};
      Object.keys(opt).forEach(function (k) { o[k] = opt[k]; });
      o.r = newRender(opt.r.root);
      o.added = true;    // sent even when empty
      o.depth = 0;       // a fresh render: its own depth and budget
      inner = makeField(schema, undefined, o);
      // The added field takes the wrapper's place as its pointer's target.
      var remove = el('button', { type: 'button', className: 'small remove', text: 'Remove ' + opt.label });
      remove.addEventListener('click', function () {
        collapsed();
        changed();
        wrap.querySelector('button.add').focus();
      });
      delete wrap.dataset.pointer;
      inner.node.dataset.pointer = opt.pointer;
      wrap.appendChild(inner.node);
      wrap.appendChild(remove);
    }
    collapsed();
    return { node: wrap, get: function () { return inner ? inner.get() : undefined; } };
  }

  function numberField(s, value, opt, id, describedBy, integer) {
    // HTML's min and max are inclusive: an exclusive bound becomes the next
    // integer for an integer field, and no attribute for a number (the
    // hint says "greater than").
    var b = bounds(s);
    var min = b.min, max = b.max;
    if (b.exMin) { min = integer ? Math.floor(b.min) + 1 : undefined; }
    if (b.exMax) { max = integer ? Math.ceil(b.max) - 1 : undefined; }
    var input = control('input', {
      type: 'number', step: integer ? (s.multipleOf || 1) : (s.multipleOf || 'any'),
      min: typeof min === 'number' && isFinite(min) ? min : null, max: typeof max === 'number' && isFinite(max) ? max : null,
      inputmode: integer ? 'numeric' : 'decimal'
    }, opt, id, describedBy);
    if (typeof value === 'number') { input.value = String(value); }
    return {
      node: input,
      get: function () {
        if (input.value === '') { return opt.inArray ? null : undefined; }
        var n = Number(input.value);
        return isNaN(n) ? undefined : n;
      }
    };
  }

  // ---- the selected tool: form and JSON editor kept in sync ---------------

  function formValue() { return state.root ? state.root.get() : {}; }

  function writeRaw(v) {
    $('raw').value = JSON.stringify(v === undefined ? {} : v, null, 2);
    show($('raw-error'), false);
  }

  function buildForm(value) {
    var form = $('form');
    clear(form);
    var r = newRender(state.schema);
    // The arguments are always an object: a root schema that says nothing
    // about them (true, {}) gets an object form with no fields.
    var rootSchema = kindOf(resolve(state.schema, 0, r)) === 'object' ? state.schema : { type: 'object' };
    state.root = makeField(rootSchema, value, { r: r, pointer: '', required: true, depth: 0, noDefault: value !== undefined });
    form.appendChild(state.root.node);
  }

  function clearValidation() {
    clearMarks();
    clear($('validation'));
  }

  function changed() {
    writeRaw(formValue());
    clearValidation();
  }

  $('form').addEventListener('input', changed);
  $('form').addEventListener('change', changed);
  $('form').addEventListener('submit', function (ev) { ev.preventDefault(); });

  $('raw').addEventListener('input', function () {
    var text = $('raw').value;
    var v;
    clearValidation();
    try { v = JSON.parse(text); } catch (e) {
      $('raw-error').textContent = 'Not valid JSON: ' + e.message;
      show($('raw-error'), true);
      return;
    }
    if (!isObject(v)) {
      $('raw-error').textContent = 'The arguments must be a JSON object.';
      show($('raw-error'), true);
      return;
    }
    show($('raw-error'), false);
    buildForm(v);
  });

  // selectTool loads a tool and shows it; focus moves to its form when the
  // user chose it (focus is set), so Tab reaches Call without crossing the
  // rest of the list.
  function selectTool(name, focus) {
    var seq = ++state.seq;
    state.current = { name: name };
    Array.prototype.forEach.call($('tools').querySelectorAll('button.tool'), function (b) {
      if (b.dataset.name === name) { b.setAttribute('aria-current', 'true'); } else { b.removeAttribute('aria-current'); }
    });
    return getJSON('tools/' + encodeURIComponent(name)).then(function (tool) {
      if (seq !== state.seq) { return false; }
      if (!isObject(tool) || typeof tool.name !== 'string') { throw new Error('not a tool description'); }
      showTool(tool);
      if (focus) {
        var first = $('form').querySelector('input, select, textarea, button');
        (first || $('tool')).focus();
      }
      return true;
    }).catch(function (err) {
      if (seq !== state.seq) { return false; }
      state.current = { name: name, failed: true };
      show($('empty'), true);
      show($('detail'), false);
      $('empty').textContent = 'Could not load ' + name + ': ' + err.message;
      return false;
    });
  }

  function showTool(tool) {
    abandonCall();
    state.current = tool;
    state.schema = isObject(tool.inputSchema) || typeof tool.inputSchema === 'boolean' ? tool.inputSchema : { type: 'object' };
    show($('empty'), false);
    show($('detail'), true);
    $('tool-name').textContent = tool.name;
    var m = state.meta[tool.name] || {};
    $('tool-version').textContent = m.version ? 'v' + m.version : '';
    show($('tool-version'), !!m.version);
    var title = titleOf(tool);
    $('tool-title').textContent = title;
    show($('tool-title'), !!title);
    $('tool-desc').textContent = tool.description || '';
    var ann = $('tool-annotations');
    clear(ann);
    annotationBadges(tool.annotations).forEach(function (b) { ann.appendChild(b); });
    $('schema-in').textContent = pretty(tool.inputSchema === undefined ? {} : tool.inputSchema);
    $('schema-out').textContent = tool.outputSchema === undefined ? '(none: this tool declares no output schema)' : pretty(tool.outputSchema);
    $('schema-ann').textContent = tool.annotations === undefined ? '(none)' : pretty(tool.annotations);
    buildForm(undefined);
    writeRaw(formValue());
    clearValidation();
    show($('result'), false);
    show($('logs'), false);
    show($('progress'), false);
    show($('input'), false);
    show($('curl-text'), false);
    $('copy-status').textContent = '';
  }

  $('reset').addEventListener('click', function () {
    if (!state.current || !state.current.inputSchema) { return; }
    buildForm(undefined);
    writeRaw(formValue());
    clearValidation();
  });

  // ---- validation marks --------------------------------------------------

  function clearMarks() {
    Array.prototype.forEach.call($('form').querySelectorAll('.invalid'), function (w) {
      w.classList.remove('invalid');
      var e = w.querySelector(':scope > .field-error');
      if (e) { e.textContent = ''; e.hidden = true; }
      var c = w.querySelector('[aria-invalid]');
      if (c) { c.removeAttribute('aria-invalid'); }
    });
  }

  function fieldFor(pointer) {
    var fields = $('form').querySelectorAll('[data-pointer]');
    var byPointer = {};
    Array.prototype.forEach.call(fields, function (f) { byPointer[f.dataset.pointer] = f; });
    var p = pointer;
    for (;;) {
      if (byPointer[p] && p !== '') { return byPointer[p]; }
      if (p === '' || p.lastIndexOf('/') < 0) { return null; }
      p = p.slice(0, p.lastIndexOf('/'));
    }
  }

  // failureList renders failures ({path, message}) as a list.
  function failureList(errors) {
    var list = el('ul', { className: 'failures' });
    errors.forEach(function (f) {
      var path = isObject(f) && typeof f.path === 'string' ? f.path : '';
      var msg = String(isObject(f) && f.message !== undefined ? f.message : '');
      list.appendChild(el('li', null, el('code', { text: path === '' ? '(root)' : path }), ' ', msg));
    });
    return list;
  }

  // markFailures puts each failure next to its field and lists them all.
  function markFailures(errors) {
    clearMarks();
    var box = $('validation');
    clear(box);
    var first = null;
    errors.forEach(function (f) {
      var path = isObject(f) && typeof f.path === 'string' ? f.path : '';
      var msg = String(isObject(f) && f.message !== undefined ? f.message : '');
      var field = fieldFor(path);
      if (!field) { return; }
      field.classList.add('invalid');
      var e = field.querySelector(':scope > .field-error');
      if (!e) { return; }
      e.textContent = e.textContent ? e.textContent + '; ' + msg : msg;
      e.hidden = false;
      var c = field.querySelector('input, select, textarea');
      if (c) { c.setAttribute('aria-invalid', 'true'); }
      if (!first) { first = c; }
    });
    box.appendChild(el('p', { className: 'bad', text: errors.length === 1 ? '1 problem with the arguments:' : errors.length + ' problems with the arguments:' }));
    box.appendChild(failureList(errors));
    return first;
  }

  $('validate').addEventListener('click', function () {
    if (!state.current || !state.current.inputSchema) { return; }
    var name = state.current.name;
    var box = $('validation');
    clear(box);
    box.appendChild(el('p', { className: 'muted', text: 'Validating...' }));
    postTo(toolURL(name, 'validate'), $('raw').value).then(function (r) {
      if (state.current.name !== name) { return; }
      clear(box);
      var b = r.body;
      if (b && b.valid === true) {
        clearMarks();
        box.appendChild(el('p', { className: 'good', text: 'Valid: the arguments match the input schema.' }));
      } else if (b && Array.isArray(b.errors)) {
        var first = markFailures(b.errors);
        if (first) { first.focus(); }
      } else {
        box.appendChild(el('p', { className: 'bad', text: 'Validation failed: HTTP ' + r.status + ((b && b.error) ? ': ' + b.error : '') }));
      }
    }, function (err) {
      clear(box);
      box.appendChild(el('p', { className: 'bad', text: 'Could not validate: ' + err.message }));
    });
  });

  // ---- MCP: how a call goes over the wire ---------------------------------

  var mcpURL = null;
  if (cfg.mcp) {
    try {
      var u = new URL(cfg.mcp, location.href);
      if (u.origin === location.origin) { mcpURL = u.href; }
    } catch (e) { mcpURL = null; }
  }
  if (mcpURL) {
    show($('via-box'), true);
    show($('curl-mcp'), true);
  }
  function via() { return mcpURL && $('via').value === 'mcp' ? 'mcp' : 'rest'; }
  function syncVia() { show($('level-box'), via() === 'mcp'); }
  $('via').addEventListener('change', syncVia);
  syncVia();

  function utf8Base64(s) {
    var bytes = new TextEncoder().encode(s);
    var bin = '';
    for (var i = 0; i < bytes.length; i++) { bin += String.fromCharCode(bytes[i]); }
    return btoa(bin);
  }

  // headerValue is a value as MCP's Streamable HTTP carries it in a header:
  // as is when it is plain visible ASCII, else Base64 between =?base64? and ?=.
  function headerValue(v) {
    var plain = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(v) && !(v.indexOf('=?base64?') === 0 && v.slice(-2) === '?=');
    return plain ? v : '=?base64?' + utf8Base64(v) + '?=';
  }

  // paramHeaders are the Mcp-Param-* headers the tool's input schema asks
  // for (x-mcp-header on a top-level property) with the arguments' values.
  function paramHeaders(args) {
    var out = {};
    var props = isObject(state.schema) && isObject(state.schema.properties) ? state.schema.properties : {};
    Object.keys(props).forEach(function (k) {
      var p = props[k];
      if (!isObject(p) || typeof p['x-mcp-header'] !== 'string' || !/^[A-Za-z0-9_-]+$/.test(p['x-mcp-header'])) { return; }
      var v = isObject(args) ? args[k] : undefined;
      var text;
      if (typeof v === 'string') { text = v; }
      else if (typeof v === 'number' && Math.floor(v) === v) { text = String(v); }
      else if (typeof v === 'boolean') { text = String(v); }
      else { return; }
      out['Mcp-Param-' + p['x-mcp-header']] = headerValue(text);
    });
    return out;
  }

  var rpcSeq = 0;

  // mcpBody is a tools/call request; argsText goes in as the user typed it,
  // so numbers keep every digit.
  function mcpBody(id, name, argsText, extra, forCurl) {
    var meta = {
      'io.modelcontextprotocol/protocolVersion': MCP_VERSION,
      'io.modelcontextprotocol/clientCapabilities': forCurl ? {} : { elicitation: { form: {}, url: {} } },
      'io.modelcontextprotocol/clientInfo': { name: 'toolexec-explorer', version: '1' }
    };
    meta.progressToken = forCurl ? 'curl' : 'explorer-' + id;
    var level = $('log-level').value;
    if (level) { meta['io.modelcontextprotocol/logLevel'] = level; }
    var params = { name: name, _meta: meta };
    Object.keys(extra || {}).forEach(function (k) { params[k] = extra[k]; });
    var p = JSON.stringify(params);
    return '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"method":"tools/call","params":{"arguments":' + argsText.trim() + ',' + p.slice(1) + '}';
  }

  function mcpHeaders(name, args) {
    var h = {
      'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': MCP_VERSION, 'Mcp-Method': 'tools/call', 'Mcp-Name': headerValue(name)
    };
    var ph = paramHeaders(args);
    Object.keys(ph).forEach(function (k) { h[k] = ph[k]; });
    return h;
  }

  // readEvents reads a text/event-stream body, handing each event's data
  // to onData; an event over MAX_EVENT bytes ends the call.
  function readEvents(resp, onData) {
    var reader = resp.body.getReader();
    var decoder = new TextDecoder();
    var buf = '';
    function flush(block) {
      var data = [];
      block.split(/\r\n|\r|\n/).forEach(function (line) {
        if (line.indexOf('data:') === 0) { data.push(line.slice(line.charAt(5) === ' ' ? 6 : 5)); }
      });
      if (data.length) { onData(data.join('\n')); }
    }
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) {
          buf += decoder.decode();
          if (buf.trim()) { flush(buf); }
          return;
        }
        buf += decoder.decode(chunk.value, { stream: true });
        var m;
        while ((m = /\r\n\r\n|\n\n|\r\r/.exec(buf)) !== null) {
          flush(buf.slice(0, m.index));
          buf = buf.slice(m.index + m[0].length);
        }
        if (buf.length > MAX_EVENT) {
          reader.cancel();
          throw new Error('the server sent an event of more than ' + (MAX_EVENT >> 20) + ' MiB');
        }
        return pump();
      });
    }
    return pump();
  }

  // mcpRound sends one tools/call (a first call or a retry with answers)
  // and resolves to {status, message, text, ms}: the JSON-RPC response.
  function mcpRound(call, extra) {
    var id = ++rpcSeq;
    var args;
    try { args = JSON.parse(call.args); } catch (e) { args = {}; }
    var headers = withToken(mcpHeaders(call.name, args));
    var body = mcpBody(id, call.name, call.args, extra, false);
    var started = performance.now();
    return fetch(mcpURL, { method: 'POST', headers: headers, body: body, credentials: 'same-origin', cache: 'no-store', signal: call.controller.signal })
      .then(function (resp) {
        var ct = (resp.headers.get('Content-Type') || '').toLowerCase();
        var done = function (msg, text) {
          var ms = performance.now() - started;
          call.busy += ms;
          return { status: resp.status, message: msg, text: text, ms: ms };
        };
        if (ct.indexOf('text/event-stream') === 0) {
          var final = null, finalText = '';
          return readEvents(resp, function (data) {
            var msg;
            try { msg = JSON.parse(data); } catch (e) { return; }
            if (!isObject(msg)) { return; }
            if (msg.method === 'notifications/progress') { onProgress(call, msg.params); }
            else if (msg.method === 'notifications/message') { onLog(call, msg.params); }
            else if (msg.id !== undefined && (msg.result !== undefined || msg.error !== undefined)) { final = msg; finalText = data; }
          }).then(function () { return done(final, finalText); });
        }
        return resp.text().then(function (t) {
          var msg = null;
          try { msg = JSON.parse(t); } catch (e) { msg = null; }
          return done(isObject(msg) ? msg : null, t);
        });
      });
  }

  // ---- calls: progress, logs, cancel, input -------------------------------

  if (!cfg.execute) {
    $('call').disabled = true;
    $('call').setAttribute('aria-describedby', 'call-reason');
    $('call-reason').textContent = cfg.executeReason || 'Calls are disabled.';
    show($('call-reason'), true);
  }

  function argsReady() {
    var text = $('raw').value;
    try { if (isObject(JSON.parse(text))) { return text; } } catch (e) { /* below */ }
    show($('raw-error'), true);
    $('raw-error').textContent = 'Fix the JSON arguments before calling: they must be one JSON object.';
    $('raw').focus();
    return null;
  }

  $('call').addEventListener('click', function () {
    if (!cfg.execute || !state.current || !state.current.inputSchema || state.call) { return; }
    var text = argsReady();
    if (text !== null) { startCall(state.current.name, text); }
  });

  $('cancel').addEventListener('click', function () {
    var call = state.call;
    if (!call) { return; }
    call.cancelled = true;
    call.controller.abort();
    // A call waiting for the user's input has no request in flight.
    if (call.waiting) { finishCall(call, { cancelled: true }); }
  });

  function startCall(name, text) {
    var call = {
      name: name, args: text, via: via(), controller: new AbortController(), busy: 0, round: 1,
      logs: 0, started: Date.now(), tool: state.current
    };
    state.call = call;
    $('call').disabled = true;
    $('call').setAttribute('aria-busy', 'true');
    show($('cancel'), true);
    clear($('log-list'));
    show($('logs'), false);
    $('result').parentNode.classList.remove('with-logs');
    show($('input'), false);
    var bar = $('progress-bar');
    bar.removeAttribute('value');
    bar.removeAttribute('max');
    $('progress-text').textContent = 'Waiting for the tool...';
    show($('progress'), call.via === 'mcp');
    showResultPending();
    if (call.via === 'mcp') { runMCP(call, null); return; }
    postTo(toolURL(name, 'call'), text, call.controller.signal).then(function (r) {
      call.busy = r.ms;
      finishCall(call, { status: r.status, text: r.text, body: r.body, ms: r.ms, via: 'rest' });
    }, function (err) {
      finishCall(call, call.cancelled ? { cancelled: true } : { failure: err.message });
    });
  }

  function runMCP(call, extra) {
    call.waiting = false;
    mcpRound(call, extra).then(function (r) {
      if (state.call !== call) { return; }
      var msg = r.message;
      if (msg && isObject(msg.result) && msg.result.resultType === 'input_required') {
        askForInput(call, msg.result);
        return;
      }
      finishCall(call, { status: r.status, text: r.text, rpc: msg, body: msg && msg.result, ms: call.busy, via: 'mcp' });
    }, function (err) {
      finishCall(call, call.cancelled ? { cancelled: true } : { failure: err.message });
    });
  }

  function onProgress(call, p) {
    if (state.call !== call || !isObject(p) || typeof p.progress !== 'number') { return; }
    var bar = $('progress-bar');
    var total = typeof p.total === 'number' && p.total > 0 ? p.total : 0;
    if (total) {
      bar.max = total;
      bar.value = Math.min(p.progress, total);
    } else {
      bar.removeAttribute('value');
      bar.removeAttribute('max');
    }
    var text = total ? p.progress + ' of ' + total : String(p.progress);
    if (typeof p.message === 'string' && p.message) { text += ': ' + p.message; }
    $('progress-text').textContent = text;
    show($('progress'), true);
  }

  function onLog(call, p) {
    if (state.call !== call || !isObject(p)) { return; }
    var list = $('log-list');
    call.logs++;
    if (list.childNodes.length >= MAX_LOGS) { list.removeChild(list.firstChild); }
    var level = typeof p.level === 'string' ? p.level : 'info';
    var data = typeof p.data === 'string' ? p.data : pretty(p.data);
    list.appendChild(el('li', { className: 'log-' + level.replace(/[^a-z]/g, '') },
      el('span', { className: 'log-level', text: level }),
      typeof p.logger === 'string' && p.logger ? el('span', { className: 'muted', text: '[' + p.logger + '] ' }) : null,
      data));
    show($('logs'), true);
    $('result').parentNode.classList.add('with-logs');
    $('logs-title').textContent = call.logs > MAX_LOGS ? 'Log messages (the last ' + MAX_LOGS + ' of ' + call.logs + ')' : 'Log messages';
  }

  // askForInput shows the tool's questions; when each has an answer the
  // call is retried with them and the request state, as MCP's
  // input-required result asks.
  function askForInput(call, result) {
    call.waiting = true;
    call.round++;
    var reqs = isObject(result.inputRequests) ? result.inputRequests : {};
    var keys = Object.keys(reqs);
    var answers = {};
    var body = $('input-body');
    clear(body);
    $('progress-text').textContent = 'Waiting for your answer...';
    var extra = {};
    if (typeof result.requestState === 'string') { extra.requestState = result.requestState; }
    function answered(key, answer, box) {
      answers[key] = answer;
      box.querySelectorAll('button').forEach(function (b) { b.disabled = true; });
      box.appendChild(el('p', { className: 'muted', text: 'Answered: ' + answer.action }));
      if (Object.keys(answers).length === keys.length) {
        extra.inputResponses = answers;
        show($('input'), false);
        $('progress-text').textContent = 'Resuming the call...';
        runMCP(call, extra);
      }
    }
    if (!keys.length) { runMCP(call, extra); return; }
    keys.forEach(function (key) {
      var req = reqs[key];
      var box = el('div', { className: 'ask', role: 'group', 'aria-label': 'Request ' + key });
      body.appendChild(box);
      var params = isObject(req) && isObject(req.params) ? req.params : {};
      var method = isObject(req) ? String(req.method) : '';
      if (method !== 'elicitation/create') {
        box.appendChild(el('p', { className: 'bad', text: 'The tool asks for ' + method + ', which this page cannot answer. Cancel the call.' }));
        box.appendChild(el('pre', { className: 'code', text: pretty(req) }));
        return;
      }
      box.appendChild(el('p', { className: 'ask-message', text: String(params.message || '') }));
      var form = null;
      if (params.mode === 'url') {
        var href = typeof params.url === 'string' ? safeHref(params.url) : null;
        var host = '';
        try { host = new URL(params.url).host; } catch (e) { host = ''; }
        box.appendChild(el('p', { className: 'ask-url' }, 'The tool asks you to open a page on ', el('strong', { text: host || '(no host)' }), ': ',
          el('code', { text: String(params.url || '') })));
        if (href) {
          box.appendChild(el('p', null, el('a', { href: href, target: '_blank', rel: 'noopener noreferrer', text: 'Open ' + host })));
        }
      } else {
        var schema = isObject(params.requestedSchema) ? params.requestedSchema : { type: 'object' };
        var f = el('form', { className: 'form ask-form', novalidate: true, 'aria-label': 'Answer to ' + key });
        f.addEventListener('submit', function (ev) { ev.preventDefault(); });
        form = makeField(kindOf(resolve(schema, 0, newRender(schema))) === 'object' ? schema : { type: 'object' }, undefined,
          { r: newRender(schema), pointer: '', required: true, depth: 0 });
        f.appendChild(form.node);
        box.appendChild(f);
      }
      var problem = el('p', { className: 'field-error', role: 'alert', hidden: true });
      var accept = el('button', { type: 'button', className: 'primary', text: params.mode === 'url' ? 'Done: continue' : 'Submit' });
      var decline = el('button', { type: 'button', text: 'Decline' });
      var cancel = el('button', { type: 'button', text: 'Dismiss' });
      box.appendChild(el('div', { className: 'actions' }, accept, decline, cancel));
      box.appendChild(problem);
      accept.addEventListener('click', function () {
        if (!form) { answered(key, { action: 'accept' }, box); return; }
        var content = form.get() || {};
        var req2 = isObject(params.requestedSchema) && Array.isArray(params.requestedSchema.required) ? params.requestedSchema.required : [];
        var missing = req2.filter(function (k) { return content[k] === undefined || content[k] === ''; });
        if (missing.length) {
          problem.textContent = 'Required: ' + missing.join(', ');
          show(problem, true);
          return;
        }
        answered(key, { action: 'accept', content: content }, box);
      });
      decline.addEventListener('click', function () { answered(key, { action: 'decline' }, box); });
      cancel.addEventListener('click', function () { answered(key, { action: 'cancel' }, box); });
    });
    show($('input'), true);
    var first = body.querySelector('input, select, textarea, button');
    if (first) { first.focus(); }
  }

  function callEnded() {
    state.call = null;
    var btn = $('call');
    btn.disabled = !cfg.execute;
    btn.removeAttribute('aria-busy');
    show($('cancel'), false);
    show($('input'), false);
    show($('progress'), false);
  }

  // abandonCall cancels the call in flight (or waiting for input) when the
  // user turns to another tool, and records it as cancelled.
  function abandonCall() {
    var call = state.call;
    if (!call) { return; }
    call.cancelled = true;
    call.controller.abort();
    callEnded();
    addHistory({ name: call.name, args: call.args, via: call.via, status: 'cancelled', ms: Math.round(call.busy || Date.now() - call.started), at: call.started });
  }

  // finishCall shows how a call ended and records it in the history.
  function finishCall(call, r) {
    if (state.call !== call) { return; }
    call.waiting = false;
    callEnded();
    if (r.cancelled && !call.busy) { call.busy = Date.now() - call.started; }
    r.ms = call.busy;
    var outcome = showResult(r, call);
    addHistory({ name: call.name, args: call.args, via: call.via, status: outcome, ms: Math.round(call.busy), at: call.started });
  }

  // ---- results -----------------------------------------------------------

  function showResultPending() {
    var sec = $('result');
    sec.classList.remove('is-error');
    show(sec, true);
    $('result-meta').textContent = 'Calling...';
    clear($('result-body'));
    clear(outputBox);
    state.last = null;
  }

  // refusal says whether an MCP result is the pipeline's refusal of the
  // arguments: an isError result whose structuredContent is the failure
  // list, as docs/mcp.md describes it.
  function refusalErrors(b) {
    var sc = b.structuredContent;
    if (b.isError !== true || !isObject(sc) || Object.keys(sc).length !== 1 || !Array.isArray(sc.errors) || !sc.errors.length) { return null; }
    return sc.errors.every(function (f) { return isObject(f) && typeof f.path === 'string' && typeof f.message === 'string'; }) ? sc.errors : null;
  }

  // showResult shows an answer and returns a one-word summary of it.
  function showResult(r, call) {
    var sec = $('result');
    var meta = $('result-meta');
    var body = $('result-body');
    clear(meta);
    clear(body);
    clear(outputBox);
    show(sec, true);
    state.last = r.text ? r.text : null;
    var b = r.body;
    var isResult = isObject(b) && Array.isArray(b.content);
    var refused = isResult && ((r.via === 'rest' && r.status === 422) || (r.via === 'mcp' && refusalErrors(b)));
    var isError = r.failure || r.cancelled || !isResult || b.isError === true;
    sec.classList.toggle('is-error', !!isError);
    meta.appendChild(el('span', { className: 'via', text: (r.via || call.via) === 'mcp' ? 'MCP' : 'REST' }));
    if (!r.cancelled) { meta.appendChild(el('span', { className: 'status', text: r.status ? 'HTTP ' + r.status : 'no answer' })); }
    meta.appendChild(el('span', { className: 'duration', text: Math.round(r.ms || 0) + ' ms' }));
    if (call.round > 1) { meta.appendChild(el('span', { text: call.round + ' rounds' })); }
    var trace = isResult && isObject(b._meta) && b._meta._trace_id;
    if (trace !== undefined && trace !== null && trace !== false) {
      meta.appendChild(el('span', { className: 'trace' }, 'trace id ', el('code', { text: String(trace) })));
    }
    if (r.cancelled) {
      body.appendChild(el('p', { className: 'banner bad', role: 'alert', text: 'Cancelled: the call was stopped, and the server told so by the closed connection.' }));
      return 'cancelled';
    }
    if (r.failure) {
      body.appendChild(el('p', { className: 'banner bad', role: 'alert', text: 'The request failed: ' + r.failure }));
      return 'failed';
    }
    if (r.via === 'mcp' && isObject(r.rpc) && isObject(r.rpc.error)) {
      var e = r.rpc.error;
      body.appendChild(el('p', { className: 'banner bad', role: 'alert', text: 'JSON-RPC error ' + String(e.code) + ': ' + String(e.message) }));
      if (e.data !== undefined) { body.appendChild(el('pre', { className: 'code', text: pretty(e.data) })); }
      appendRaw(body, r.text);
      return 'error ' + String(e.code);
    }
    if (!isResult) {
      var msg = isObject(b) && typeof b.error === 'string' ? b.error
        : isObject(r.rpc) && typeof r.rpc.error === 'string' ? r.rpc.error : (r.text || 'empty answer');
      if (r.via === 'mcp' && !r.rpc && r.status === 200) { msg = 'the answer held no JSON-RPC response'; }
      body.appendChild(el('p', { className: 'banner bad', role: 'alert', text: 'Call refused (HTTP ' + r.status + '): ' + msg }));
      if (r.status === 401 && cfg.auth) {
        body.appendChild(el('p', { className: 'muted', text: 'Calls on this server need a bearer token: enter it at the top of the page.' }));
      }
      appendRaw(body, r.text);
      return 'HTTP ' + r.status;
    }
    if (refused) {
      body.appendChild(el('p', { className: 'banner bad', role: 'alert', text: 'The arguments were refused: they do not match the input schema, and the tool did not run.' }));
      markFailures(r.via === 'rest' && isObject(b.structuredContent) && Array.isArray(b.structuredContent.errors) ? b.structuredContent.errors : refusalErrors(b) || []);
    } else if (b.isError === true) {
      body.appendChild(el('p', { className: 'banner bad', role: 'alert', text: 'isError: the tool reported an error.' }));
    } else {
      clearValidation();
    }
    if (b.content.length === 0) { body.appendChild(el('p', { className: 'muted', text: 'No content.' })); }
    b.content.forEach(function (c) { body.appendChild(renderContent(c)); });
    if (b.structuredContent !== undefined) {
      body.appendChild(el('h4', { text: 'structuredContent' }));
      body.appendChild(el('div', { className: 'tree' }, tree(b.structuredContent, { left: MAX_TREE })));
    }
    body.appendChild(outputBox);
    if (!refused) { checkOutput(call.tool, b); }
    appendRaw(body, r.text);
    return refused ? 'refused' : b.isError === true ? 'isError' : 'ok';
  }

  // checkOutput checks structuredContent against the tool's output schema
  // on the server (the pipeline's own validator) and shows a mismatch.
  var outputBox = $('output-check');

  function checkOutput(tool, b) {
    var box = outputBox;
    if (!tool || tool.outputSchema === undefined) { return; }
    if (b.structuredContent === undefined) {
      if (b.isError !== true) {
        box.appendChild(el('p', { className: 'bad', role: 'alert', text: 'No structuredContent, though the tool declares an output schema.' }));
      }
      return;
    }
    box.appendChild(el('p', { className: 'muted', text: 'Checking structuredContent against the output schema...' }));
    postTo(url(cfg.outputPath + '?tool=' + encodeURIComponent(tool.name)), JSON.stringify(b.structuredContent)).then(function (r) {
      if (state.current !== tool) { return; }
      clear(box);
      var v = r.body;
      if (isObject(v) && v.valid === true) {
        box.appendChild(el('p', { className: 'good', text: 'structuredContent matches the output schema.' }));
      } else if (isObject(v) && Array.isArray(v.errors)) {
        box.appendChild(el('p', { className: 'bad', role: 'alert', text: 'structuredContent does not match the output schema:' }));
        box.appendChild(failureList(v.errors));
      } else {
        box.appendChild(el('p', { className: 'muted', text: 'Could not check structuredContent: HTTP ' + r.status + (isObject(v) && v.error ? ': ' + v.error : '') }));
      }
    }, function (err) {
      clear(box);
      box.appendChild(el('p', { className: 'muted', text: 'Could not check structuredContent: ' + err.message }));
    });
  }

  function appendRaw(parent, text) {
    var shown = text;
    try { shown = pretty(JSON.parse(text)); } catch (e) { /* keep as is */ }
    parent.appendChild(el('details', { className: 'raw-response' }, el('summary', { text: 'Raw response' }),
      el('pre', { text: shown, tabindex: '0', role: 'region', 'aria-label': 'Raw response' })));
  }

  $('copy-result').addEventListener('click', function () {
    if (state.last === null) { return; }
    var text = state.last;
    try { text = pretty(JSON.parse(text)); } catch (e) { /* as is */ }
    copy(text, 'the result');
  });

  var base64 = /^[A-Za-z0-9+/]*={0,2}$/;

  function dataURL(kind, mime, data) {
    if (typeof mime !== 'string' || typeof data !== 'string') { return null; }
    if (!new RegExp('^' + kind + '/[A-Za-z0-9.+-]+$').test(mime) || !base64.test(data)) { return null; }
    return 'data:' + mime + ';base64,' + data;
  }

  function block(kind, label) {
    var node = el('div', { className: 'content content-' + kind });
    node.appendChild(el('p', { className: 'content-kind', text: label }));
    return node;
  }

  // textBlock shows a text result, pretty-printed when it is a JSON object
  // or array.
  function textBlock(text) {
    var t = String(text);
    var s = t.trim();
    if (s.length <= MAX_PRETTY && (s.charAt(0) === '{' || s.charAt(0) === '[')) {
      try {
        var v = JSON.parse(s);
        var node = block('text', 'text · JSON, pretty-printed');
        node.appendChild(el('pre', { className: 'text json-text', text: pretty(v) }));
        return node;
      } catch (e) { /* not JSON: as it is */ }
    }
    var plain = block('text', 'text');
    plain.appendChild(el('pre', { className: 'text', text: t }));
    return plain;
  }

  function renderContent(c) {
    if (!isObject(c)) { return el('pre', { text: JSON.stringify(c) }); }
    var node, src;
    switch (c.type) {
      case 'text':
        return textBlock(c.text);
      case 'image':
        node = block('image', 'image · ' + c.mimeType);
        src = dataURL('image', c.mimeType, c.data);
        node.appendChild(src ? el('img', { src: src, alt: 'image result (' + c.mimeType + ')' }) : el('p', { className: 'muted', text: 'The image data is not shown: unexpected mime type or encoding.' }));
        return node;
      case 'audio':
        node = block('audio', 'audio · ' + c.mimeType);
        src = dataURL('audio', c.mimeType, c.data);
        node.appendChild(src ? el('audio', { controls: true, src: src }) : el('p', { className: 'muted', text: 'The audio data is not shown: unexpected mime type or encoding.' }));
        return node;
      case 'resource':
        var res = isObject(c.resource) ? c.resource : {};
        node = block('resource', 'embedded resource' + (res.mimeType ? ' · ' + res.mimeType : ''));
        node.appendChild(el('p', null, el('code', { text: String(res.uri || '') })));
        if (typeof res.text === 'string') {
          node.appendChild(el('pre', { className: 'text', text: res.text }));
        } else if (typeof res.blob === 'string') {
          src = dataURL('image', res.mimeType, res.blob);
          node.appendChild(src ? el('img', { src: src, alt: 'resource ' + String(res.uri || '') })
            : el('p', { className: 'muted', text: 'binary, ' + Math.floor(res.blob.length * 3 / 4) + ' bytes (base64)' }));
        }
        return node;
      case 'resource_link':
        node = block('resource-link', 'resource link' + (c.mimeType ? ' · ' + c.mimeType : ''));
        var href = typeof c.uri === 'string' ? safeHref(c.uri) : null;
        var label = String(c.title || c.name || c.uri || '');
        node.appendChild(el('p', null, href ? el('a', { href: href, target: '_blank', rel: 'noopener noreferrer', text: label }) : el('strong', { text: label }),
          ' ', el('code', { text: String(c.uri || '') })));
        if (c.description) { node.appendChild(el('p', { className: 'muted', text: String(c.description) })); }
        return node;
      default:
        node = block('other', String(c.type || 'unknown content'));
        node.appendChild(el('pre', { text: pretty(c) }));
        return node;
    }
  }

  // tree renders a JSON value as nested, collapsible lists, at most
  // budget.left nodes; the rest is in the raw response.
  function tree(v, budget) {
    if (--budget.left < 0) { return el('span', { className: 'muted', text: '...' }); }
    if (Array.isArray(v) || isObject(v)) {
      var keys = Object.keys(v);
      var d = el('details', { open: true });
      var n = keys.length;
      d.appendChild(el('summary', { className: 'muted', text: Array.isArray(v) ? '[' + n + (n === 1 ? ' item]' : ' items]') : '{' + n + (n === 1 ? ' key}' : ' keys}') }));
      var ul = el('ul');
      for (var i = 0; i < keys.length; i++) {
        if (budget.left <= 0) {
          ul.appendChild(el('li', { className: 'muted', text: (keys.length - i) + ' more: see the raw response' }));
          break;
        }
        ul.appendChild(el('li', null, el('span', { className: 'tree-key', text: keys[i] + ': ' }), tree(v[keys[i]], budget)));
      }
      d.appendChild(ul);
      return d;
    }
    var t = v === null ? 'null' : typeof v;
    return el('span', { className: 'tree-value tree-' + t, text: JSON.stringify(v) });
  }

  // ---- copy as cURL --------------------------------------------------------

  function shellQuote(s) { return "'" + String(s).replace(/'/g, "'\\''") + "'"; }

  // curlFor writes the current call as a curl command; the token is
  // $TOKEN, never the value typed in the page.
  function curlFor(kind) {
    var name = state.current.name;
    var text = $('raw').value.trim();
    var parts = ['curl -sS -X POST'];
    var headers;
    var body;
    if (kind === 'mcp') {
      var args;
      try { args = JSON.parse(text); } catch (e) { args = {}; }
      headers = mcpHeaders(name, args);
      body = mcpBody(1, name, text, null, true);
      parts[0] = 'curl -sS -N -X POST';
      parts.push(shellQuote(mcpURL));
    } else {
      headers = { 'Content-Type': 'application/json' };
      body = text;
      parts.push(shellQuote(new URL(toolURL(name, 'call'), location.href).href));
    }
    Object.keys(headers).forEach(function (k) { parts.push('-H ' + shellQuote(k + ': ' + headers[k])); });
    if (cfg.auth) { parts.push('-H "Authorization: Bearer $TOKEN"'); }
    parts.push('--data-binary ' + shellQuote(body));
    return parts.join(' \\\n  ');
  }

  function copy(text, what) {
    var done = function (ok) {
      $('copy-status').textContent = ok ? 'Copied ' + what + ' to the clipboard.' : 'Could not reach the clipboard: copy ' + what + ' from the page.';
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
    } else {
      done(false);
    }
  }

  function copyCurl(kind) {
    if (!state.current || !state.current.inputSchema) { return; }
    var cmd = curlFor(kind);
    $('curl-text').textContent = cmd;
    show($('curl-text'), true);
    copy(cmd, 'the ' + (kind === 'mcp' ? 'MCP' : 'REST') + ' cURL command' + (cfg.auth ? ' (set TOKEN first)' : ''));
  }
  $('curl-rest').addEventListener('click', function () { copyCurl('rest'); });
  $('curl-mcp').addEventListener('click', function () { copyCurl('mcp'); });

  // ---- history -------------------------------------------------------------
  //
  // The calls of this tab: in memory, and in sessionStorage only while the
  // user keeps the token there too ("keep for this tab").

  var MAX_STORED = 256 << 10; // characters of history kept in sessionStorage

  function saveHistory() {
    var s = storage();
    if (!s) { return; }
    try {
      if (!remembering()) { s.removeItem(historyKey); return; }
      var list = state.history.slice();
      var text = JSON.stringify(list);
      while (text.length > MAX_STORED && list.length) { list.pop(); text = JSON.stringify(list); }
      s.setItem(historyKey, text);
    } catch (e) { /* full or denied: memory only */ }
  }

  function loadHistory() {
    var s = storage();
    if (!s || !remembering()) { return; }
    try {
      var list = JSON.parse(s.getItem(historyKey) || '[]');
      if (Array.isArray(list)) {
        state.history = list.filter(function (h) { return isObject(h) && typeof h.name === 'string' && typeof h.args === 'string'; }).slice(0, MAX_HISTORY);
      }
    } catch (e) { state.history = []; }
  }

  function addHistory(entry) {
    state.history.unshift(entry);
    if (state.history.length > MAX_HISTORY) { state.history.length = MAX_HISTORY; }
    saveHistory();
    renderHistory();
  }

  function renderHistory() {
    var list = $('history-list');
    clear(list);
    show($('history-empty'), state.history.length === 0);
    show($('history-clear'), state.history.length > 0);
    state.history.forEach(function (h, i) {
      var when = new Date(typeof h.at === 'number' ? h.at : 0);
      var preview = h.args.length > 200 ? h.args.slice(0, 200) + '...' : h.args;
      var load = el('button', { type: 'button', className: 'small', text: 'Load', 'aria-label': 'Load the arguments of call ' + (i + 1) + ' (' + h.name + ')' });
      var again = el('button', { type: 'button', className: 'small', text: 'Run again', 'aria-label': 'Run again: call ' + (i + 1) + ' (' + h.name + ')' });
      again.disabled = !cfg.execute;
      load.addEventListener('click', function () { replay(h, false); });
      again.addEventListener('click', function () { replay(h, true); });
      list.appendChild(el('li', { className: 'history-item' },
        el('span', { className: 'history-line' },
          el('strong', { className: 'key', text: h.name }),
          el('span', { className: 'badge', text: h.via === 'mcp' ? 'MCP' : 'REST' }),
          el('span', { className: 'history-status', text: String(h.status) }),
          el('span', { className: 'muted', text: String(h.ms) + ' ms' }),
          el('span', { className: 'muted', text: when.toLocaleTimeString() }),
          load, again),
        el('code', { className: 'history-args', text: preview.replace(/\s+/g, ' ') })));
    });
  }

  // replay puts a past call's arguments back in the editor (choosing its
  // tool first), and runs it again when run is set.
  function replay(h, run) {
    var go = function () {
      $('raw').value = h.args;
      var v;
      try { v = JSON.parse(h.args); } catch (e) { v = undefined; }
      if (isObject(v)) { buildForm(v); }
      clearValidation();
      if (run && cfg.execute && !state.call) {
        if (mcpURL) { $('via').value = h.via === 'mcp' ? 'mcp' : 'rest'; syncVia(); }
        startCall(h.name, h.args);
      }
    };
    if (state.current && state.current.name === h.name && !state.current.failed) { go(); return; }
    selectTool(h.name, false).then(function (ok) { if (ok) { go(); } });
  }

  $('history-clear').addEventListener('click', function () {
    state.history = [];
    saveHistory();
    renderHistory();
  });

  loadHistory();
  renderHistory();
  loadList(false);
}());
