// The toolexec explorer page. It talks only to the REST endpoints relative to
// the page's own address, and renders everything a server sends (tool
// descriptions, schemas, results) as text: no server data ever reaches
// innerHTML or an attribute that could run script.
(function () {
  'use strict';

  var cfg = JSON.parse(document.getElementById('explorer-config').textContent);
  var base = location.pathname.charAt(location.pathname.length - 1) === '/' ? location.pathname : location.pathname + '/';
  var $ = function (id) { return document.getElementById(id); };

  var state = {
    tools: [],          // GET tools
    meta: {},           // name -> {title, version}, from the page's own endpoint
    current: null,      // GET tools/{name}
    schema: null,       // its inputSchema
    root: null,         // the form's root field
    seq: 0,             // guards against answers that arrive after another tool was chosen
    fieldSeq: 0
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

  // ---- header: title, project link, token --------------------------------

  document.title = cfg.title;
  $('title').textContent = cfg.title;
  if (cfg.projectUrl && safeHref(cfg.projectUrl)) {
    var project = $('project');
    project.href = safeHref(cfg.projectUrl);
    project.textContent = cfg.projectLabel || cfg.projectUrl;
    show(project, true);
  }

  var tokenKey = 'toolexec-explorer-token:' + base;
  function storage() {
    try { return window.sessionStorage; } catch (e) { return null; }
  }
  if (cfg.auth) {
    show($('auth'), true);
    var st = storage();
    var kept = st && st.getItem(tokenKey);
    if (kept) { $('token').value = kept; $('remember').checked = true; }
    var keep = function () {
      var s = storage();
      if (!s) { return; }
      if ($('remember').checked && $('token').value) { s.setItem(tokenKey, $('token').value); }
      else { s.removeItem(tokenKey); }
    };
    $('token').addEventListener('input', keep);
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

  function post(name, action, text) {
    var headers = withToken({ 'Content-Type': 'application/json', Accept: 'application/json' });
    var started = performance.now();
    return fetch(toolURL(name, action), { method: 'POST', headers: headers, body: text, credentials: 'same-origin', cache: 'no-store' })
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
    return (m && m.title) || (isObject(tool.annotations) && tool.annotations.title) || '';
  }

  function renderList() {
    var q = $('filter').value.trim().toLowerCase();
    var list = $('tools');
    clear(list);
    var shown = 0;
    state.tools.forEach(function (t) {
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
      btn.addEventListener('click', function () { selectTool(t.name); });
      list.appendChild(el('li', null, btn));
    });
    $('list-status').textContent = state.tools.length === 0 ? 'This server has no tools.'
      : (q ? shown + ' of ' + state.tools.length + ' tools' : state.tools.length + ' tools');
  }

  function loadList() {
    $('list-status').textContent = 'Loading tools...';
    var meta = getJSON(cfg.metaPath).catch(function () { return []; });
    return Promise.all([getJSON('tools'), meta]).then(function (res) {
      state.tools = Array.isArray(res[0]) ? res[0] : [];
      state.meta = {};
      (Array.isArray(res[1]) ? res[1] : []).forEach(function (m) {
        if (m && typeof m.name === 'string') { state.meta[m.name] = m; }
      });
      renderList();
    }, function (err) {
      $('list-status').textContent = 'Could not load the tools: ' + err.message;
    });
  }

  $('filter').addEventListener('input', renderList);
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

  function lookupPointer(root, ref) {
    if (ref === '#') { return root; }
    if (ref.indexOf('#/') !== 0) { return undefined; }
    var cur = root;
    var parts = ref.slice(2).split('/');
    for (var i = 0; i < parts.length; i++) {
      var key = decodeURIComponent(parts[i]).replace(/~1/g, '/').replace(/~0/g, '~');
      if (cur === null || typeof cur !== 'object' || !(key in cur)) { return undefined; }
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

  // resolve follows local $refs and folds allOf into one schema. depth
  // bounds recursive schemas: past it a field becomes a raw JSON editor.
  function resolve(s, depth) {
    if (s === true || s === undefined || s === null) { return {}; }
    if (!isObject(s)) { return { not: {} }; }
    if (depth > 24) { return { __tooDeep: true }; }
    var out = s;
    if (typeof out.$ref === 'string') {
      var target = lookupPointer(state.schema, out.$ref);
      var rest = mergeObjects({}, out);
      delete rest.$ref;
      out = mergeObjects(resolve(target, depth + 1), rest);
    }
    if (Array.isArray(out.allOf)) {
      var merged = mergeObjects({}, out);
      delete merged.allOf;
      out.allOf.forEach(function (part) { merged = mergeObjects(merged, resolve(part, depth + 1)); });
      out = merged;
    }
    return out;
  }

  function kindOf(s) {
    if (s.__tooDeep) { return 'json'; }
    if (s.const !== undefined) { return 'const'; }
    if (Array.isArray(s.enum) && s.enum.length) { return 'enum'; }
    if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) { return 'choice'; }
    var t = s.type;
    if (Array.isArray(t)) {
      var nonNull = t.filter(function (x) { return x !== 'null'; });
      if (nonNull.length === 1) { t = nonNull[0]; } else { return nonNull.length ? 'choice' : 'json'; }
    }
    if (typeof t === 'string') {
      if (t === 'string' || t === 'number' || t === 'integer' || t === 'boolean' || t === 'object' || t === 'array') { return t; }
      return 'json';
    }
    if (isObject(s.properties)) { return 'object'; }
    if (s.items !== undefined) { return 'array'; }
    return 'json';
  }

  function variantsOf(s) {
    var list = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : null;
    var baseSchema = mergeObjects({}, s);
    delete baseSchema.oneOf;
    delete baseSchema.anyOf;
    if (!list) {
      // a type list such as ["string", "integer"]
      baseSchema.type = undefined;
      return s.type.filter(function (t) { return t !== 'null'; }).map(function (t) {
        var v = mergeObjects(baseSchema, { type: t });
        return v;
      });
    }
    delete baseSchema.type;
    delete baseSchema.title;
    return list.map(function (v) { return mergeObjects(baseSchema, resolve(v, 1)); });
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
  function matches(s, value) {
    var k = kindOf(s);
    switch (k) {
      case 'const': return JSON.stringify(s.const) === JSON.stringify(value);
      case 'enum': return s.enum.some(function (e) { return JSON.stringify(e) === JSON.stringify(value); });
      case 'string': return typeof value === 'string';
      case 'number': return typeof value === 'number';
      case 'integer': return typeof value === 'number' && Math.floor(value) === value;
      case 'boolean': return typeof value === 'boolean';
      case 'array': return Array.isArray(value);
      case 'object':
        if (!isObject(value)) { return false; }
        var req = Array.isArray(s.required) ? s.required : [];
        if (!req.every(function (r) { return r in value; })) { return false; }
        var props = isObject(s.properties) ? s.properties : {};
        return Object.keys(props).every(function (p) {
          var ps = resolve(props[p], 1);
          return !(p in value) || ps.const === undefined || JSON.stringify(ps.const) === JSON.stringify(value[p]);
        });
      default: return true;
    }
  }

  // ---- form fields -------------------------------------------------------
  //
  // makeField returns {node, get}: get() gives the field's JSON value, or
  // undefined when the field is empty and so left out of the arguments.
  // Every field's wrapper carries the JSON Pointer of its value, which is
  // how validation failures find their field.

  function makeField(schema, value, opt) {
    var s = resolve(schema, opt.depth || 0);
    if (value === undefined && s.default !== undefined && !opt.noDefault) { value = s.default; }
    var kind = kindOf(s);
    var id = 'f' + (++state.fieldSeq);
    var wrap = el('div', { className: 'field field-' + kind, dataset: { pointer: opt.pointer } });
    var labelText = opt.label;
    if (labelText !== undefined) {
      var label = el(kind === 'object' || kind === 'array' ? 'span' : 'label', { className: 'label', 'for': (kind === 'object' || kind === 'array') ? null : id, id: id + '-label' },
        el('span', { className: 'key', text: labelText }),
        s.title && s.title !== labelText ? el('span', { className: 'muted', text: ' ' + s.title }) : null,
        opt.required ? el('span', { className: 'req', title: 'required', 'aria-hidden': 'true', text: ' *' }) : null,
        opt.required ? el('span', { className: 'visually-hidden', text: ' (required)' }) : null);
      wrap.appendChild(label);
    }
    var hintParts = [];
    if (s.description) { hintParts.push(String(s.description)); }
    if (s.format) { hintParts.push('format: ' + s.format); }
    if (s.minimum !== undefined) { hintParts.push('minimum ' + s.minimum); }
    if (s.exclusiveMinimum !== undefined) { hintParts.push('greater than ' + s.exclusiveMinimum); }
    if (s.maximum !== undefined) { hintParts.push('maximum ' + s.maximum); }
    if (s.exclusiveMaximum !== undefined) { hintParts.push('less than ' + s.exclusiveMaximum); }
    if (s.minLength !== undefined) { hintParts.push('at least ' + s.minLength + ' characters'); }
    if (s.maxLength !== undefined) { hintParts.push('at most ' + s.maxLength + ' characters'); }
    if (s.pattern) { hintParts.push('pattern ' + s.pattern); }
    if (s.minItems !== undefined) { hintParts.push('at least ' + s.minItems + ' items'); }
    if (s.maxItems !== undefined) { hintParts.push('at most ' + s.maxItems + ' items'); }
    var hint = hintParts.length ? el('p', { className: 'hint', id: id + '-hint', text: hintParts.join(' · ') }) : null;
    var err = el('p', { className: 'field-error', id: id + '-error', hidden: true });
    var describedBy = (hint ? id + '-hint ' : '') + id + '-error';

    var inner = builders[kind](s, value, opt, id, describedBy);
    if (hint && kind !== 'object' && kind !== 'array') { wrap.appendChild(hint); }
    wrap.appendChild(inner.node);
    if (hint && (kind === 'object' || kind === 'array')) {
      var legend = inner.node.querySelector(':scope > legend');
      inner.node.insertBefore(hint, legend ? legend.nextSibling : inner.node.firstChild);
    }
    wrap.appendChild(err);
    return { node: wrap, get: inner.get };
  }

  function control(tag, props, opt, id, describedBy) {
    props.id = id;
    props['aria-describedby'] = describedBy;
    if (opt.required) { props['aria-required'] = 'true'; }
    if (opt.label === undefined && opt.itemLabel) { props['aria-label'] = opt.itemLabel; }
    return el(tag, props);
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
      else if (value !== undefined) { input.value = JSON.stringify(value); }
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
      if (value !== undefined) { ta.value = JSON.stringify(value, null, 2); }
      return {
        node: ta,
        get: function () {
          if (ta.value.trim() === '') { return undefined; }
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
      Object.keys(props).forEach(function (key) {
        var child = makeField(props[key], current[key], {
          label: key, required: required.indexOf(key) >= 0,
          pointer: opt.pointer + '/' + escapePointer(key), depth: (opt.depth || 0) + 1,
          noDefault: opt.noDefault
        });
        children.push([key, child]);
        box.appendChild(child.node);
      });
      if (!children.length) {
        box.appendChild(el('p', { className: 'muted', text: isRoot ? 'No declared arguments: the JSON editor takes any.' : 'No declared properties: edit them in the JSON.' }));
      }
      // Keys the schema does not declare (typed in the JSON editor) are kept.
      var extras = {};
      Object.keys(current).forEach(function (k) { if (!(k in props)) { extras[k] = current[k]; } });
      return {
        node: box,
        get: function () {
          var out = {};
          Object.keys(extras).forEach(function (k) { out[k] = extras[k]; });
          children.forEach(function (c) {
            var v = c[1].get();
            if (v !== undefined) { out[c[0]] = v; }
          });
          if (isRoot || opt.required || opt.inArray || Object.keys(out).length) { return out; }
          return undefined;
        }
      };
    },
    array: function (s, value, opt, id) {
      var box = el('fieldset', { className: 'array', 'aria-labelledby': id + '-label' });
      box.appendChild(el('legend', { className: 'visually-hidden', text: opt.label || opt.itemLabel || 'list' }));
      var list = el('ol', { className: 'items' });
      var add = el('button', { type: 'button', className: 'small', text: 'Add item' });
      box.appendChild(list);
      box.appendChild(add);
      var items = [];
      var touched = Array.isArray(value);
      function itemSchema(i) {
        if (Array.isArray(s.prefixItems) && i < s.prefixItems.length) { return s.prefixItems[i]; }
        if (Array.isArray(s.items)) { return s.items[i] !== undefined ? s.items[i] : s.additionalItems; }
        return s.items;
      }
      function render(values) {
        clear(list);
        items = values.map(function (v, i) {
          var f = makeField(itemSchema(i), v, {
            pointer: opt.pointer + '/' + i, inArray: true, depth: (opt.depth || 0) + 1,
            itemLabel: (opt.label || 'item') + ' ' + (i + 1), noDefault: v === undefined ? false : true
          });
          var remove = el('button', { type: 'button', className: 'small remove', 'aria-label': 'Remove item ' + (i + 1), text: 'Remove' });
          remove.addEventListener('click', function () {
            var vals = items.map(function (it) { return it.get(); });
            vals.splice(i, 1);
            render(vals);
            changed();
            (list.querySelector('button.remove') || add).focus();
          });
          list.appendChild(el('li', { className: 'item' }, f.node, remove));
          return f;
        });
      }
      render(Array.isArray(value) ? value : []);
      add.addEventListener('click', function () {
        touched = true;
        var vals = items.map(function (it) { return it.get(); });
        vals.push(undefined);
        render(vals);
        changed();
        var inputs = list.lastChild && list.lastChild.querySelector('input, select, textarea');
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
      var variants = variantsOf(s);
      var box = el('div', { className: 'choice' });
      var sel = control('select', { className: 'choice-select' }, opt, id, describedBy);
      if (!opt.required && !opt.inArray) { sel.appendChild(el('option', { value: '', text: '(not set)' })); }
      variants.forEach(function (v, i) { sel.appendChild(el('option', { value: String(i), text: variantLabel(v, i) })); });
      var holder = el('div', { className: 'choice-body' });
      box.appendChild(sel);
      box.appendChild(holder);
      var inner = null;
      function build(i, v) {
        clear(holder);
        inner = null;
        if (i < 0) { return; }
        inner = makeField(variants[i], v, {
          pointer: opt.pointer, inArray: true, required: true, depth: (opt.depth || 0) + 1,
          itemLabel: (opt.label || opt.itemLabel || 'value') + ' (' + variantLabel(variants[i], i) + ')'
        });
        // The chosen variant's field shares this field's pointer; the outer
        // wrapper already names it, so the inner one is not a target.
        delete inner.node.dataset.pointer;
        holder.appendChild(inner.node);
      }
      var start = -1;
      if (value !== undefined) {
        start = variants.findIndex(function (v) { return matches(v, value); });
      } else if (opt.required || opt.inArray) {
        start = 0;
      }
      sel.value = start >= 0 ? String(start) : '';
      build(start, start >= 0 ? value : undefined);
      sel.addEventListener('change', function () {
        build(sel.value === '' ? -1 : Number(sel.value), undefined);
        changed();
      });
      return { node: box, get: function () { return inner ? inner.get() : undefined; } };
    }
  };

  function numberField(s, value, opt, id, describedBy, integer) {
    var min = s.minimum !== undefined ? s.minimum : s.exclusiveMinimum;
    var max = s.maximum !== undefined ? s.maximum : s.exclusiveMaximum;
    var input = control('input', {
      type: 'number', step: integer ? (s.multipleOf || 1) : (s.multipleOf || 'any'),
      min: typeof min === 'number' ? min : null, max: typeof max === 'number' ? max : null, inputmode: integer ? 'numeric' : 'decimal'
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
    // The arguments are always an object: a root schema that says nothing
    // about them (true, {}) gets an object form with no fields.
    var rootSchema = kindOf(resolve(state.schema, 0)) === 'object' ? state.schema : { type: 'object' };
    state.root = makeField(rootSchema, value, { pointer: '', required: true, depth: 0, noDefault: value !== undefined });
    form.appendChild(state.root.node);
  }

  function changed() {
    writeRaw(formValue());
    clearMarks();
    clear($('validation'));
  }

  $('form').addEventListener('input', changed);
  $('form').addEventListener('change', changed);
  $('form').addEventListener('submit', function (ev) { ev.preventDefault(); });

  $('raw').addEventListener('input', function () {
    var text = $('raw').value;
    var v;
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
    clearMarks();
  });

  function selectTool(name) {
    var seq = ++state.seq;
    state.current = { name: name };
    Array.prototype.forEach.call($('tools').querySelectorAll('button.tool'), function (b) {
      if (b.dataset.name === name) { b.setAttribute('aria-current', 'true'); } else { b.removeAttribute('aria-current'); }
    });
    return getJSON('tools/' + encodeURIComponent(name)).then(function (tool) {
      if (seq !== state.seq) { return; }
      showTool(tool);
    }, function (err) {
      if (seq !== state.seq) { return; }
      show($('empty'), true);
      show($('detail'), false);
      $('empty').textContent = 'Could not load ' + name + ': ' + err.message;
    });
  }

  function showTool(tool) {
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
    buildForm(undefined);
    writeRaw(formValue());
    clearMarks();
    clear($('validation'));
    show($('result'), false);
  }

  $('reset').addEventListener('click', function () {
    if (!state.current) { return; }
    buildForm(undefined);
    writeRaw(formValue());
    clearMarks();
    clear($('validation'));
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

  // markFailures puts each failure next to its field and lists them all.
  function markFailures(errors) {
    clearMarks();
    var box = $('validation');
    clear(box);
    var first = null;
    var list = el('ul', { className: 'failures' });
    errors.forEach(function (f) {
      var path = typeof f.path === 'string' ? f.path : '';
      var msg = String(f.message === undefined ? '' : f.message);
      list.appendChild(el('li', null, el('code', { text: path === '' ? '(root)' : path }), ' ', msg));
      var field = fieldFor(path);
      if (!field) { return; }
      field.classList.add('invalid');
      var e = field.querySelector(':scope > .field-error');
      e.textContent = e.textContent ? e.textContent + '; ' + msg : msg;
      e.hidden = false;
      var c = field.querySelector('input, select, textarea');
      if (c) { c.setAttribute('aria-invalid', 'true'); }
      if (!first) { first = c; }
    });
    box.appendChild(el('p', { className: 'bad', text: errors.length === 1 ? '1 problem with the arguments:' : errors.length + ' problems with the arguments:' }));
    box.appendChild(list);
    return first;
  }

  $('validate').addEventListener('click', function () {
    if (!state.current || !state.current.inputSchema) { return; }
    var name = state.current.name;
    var box = $('validation');
    clear(box);
    box.appendChild(el('p', { className: 'muted', text: 'Validating...' }));
    post(name, 'validate', $('raw').value).then(function (r) {
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

  // ---- calls and results -------------------------------------------------

  if (!cfg.execute) {
    $('call').disabled = true;
    $('call').setAttribute('aria-describedby', 'call-reason');
    $('call-reason').textContent = cfg.executeReason || 'Calls are disabled.';
    show($('call-reason'), true);
  }

  $('call').addEventListener('click', function () {
    if (!cfg.execute || !state.current || !state.current.inputSchema) { return; }
    var name = state.current.name;
    var text = $('raw').value;
    try { if (!isObject(JSON.parse(text))) { throw new Error('not an object'); } } catch (e) {
      show($('raw-error'), true);
      $('raw-error').textContent = 'Fix the JSON arguments before calling: they must be one JSON object.';
      $('raw').focus();
      return;
    }
    var btn = $('call');
    btn.disabled = true;
    btn.setAttribute('aria-busy', 'true');
    showResultPending();
    post(name, 'call', text).then(function (r) {
      if (state.current.name === name) { showResult(r); }
    }, function (err) {
      showResult({ status: 0, text: '', body: undefined, ms: 0, failure: err.message });
    }).then(function () {
      btn.disabled = false;
      btn.removeAttribute('aria-busy');
    });
  });

  function showResultPending() {
    var sec = $('result');
    sec.classList.remove('is-error');
    show(sec, true);
    $('result-meta').textContent = 'Calling...';
    clear($('result-body'));
  }

  function showResult(r) {
    var sec = $('result');
    var meta = $('result-meta');
    var body = $('result-body');
    clear(meta);
    clear(body);
    show(sec, true);
    var b = r.body;
    var isResult = isObject(b) && Array.isArray(b.content);
    var isError = r.failure || !isResult || b.isError === true;
    sec.classList.toggle('is-error', !!isError);
    meta.appendChild(el('span', { className: 'status', text: r.status ? 'HTTP ' + r.status : 'no answer' }));
    meta.appendChild(el('span', { className: 'duration', text: Math.round(r.ms) + ' ms' }));
    var trace = isResult && isObject(b._meta) && b._meta._trace_id;
    if (trace !== undefined && trace !== null && trace !== false) {
      meta.appendChild(el('span', { className: 'trace' }, 'trace id ', el('code', { text: String(trace) })));
    }
    if (r.failure) {
      body.appendChild(el('p', { className: 'banner bad', text: 'The request failed: ' + r.failure }));
      return;
    }
    if (!isResult) {
      var msg = isObject(b) && typeof b.error === 'string' ? b.error : (r.text || 'empty answer');
      body.appendChild(el('p', { className: 'banner bad', role: 'alert', text: 'Call refused (HTTP ' + r.status + '): ' + msg }));
      if (r.status === 401 && cfg.auth) {
        body.appendChild(el('p', { className: 'muted', text: 'Calls on this server need a bearer token: enter it at the top of the page.' }));
      }
      appendRaw(body, r.text);
      return;
    }
    if (b.isError === true) {
      body.appendChild(el('p', { className: 'banner bad', role: 'alert', text: 'isError: the tool reported an error.' }));
    }
    if (b.content.length === 0) { body.appendChild(el('p', { className: 'muted', text: 'No content.' })); }
    b.content.forEach(function (c) { body.appendChild(renderContent(c)); });
    if (b.structuredContent !== undefined) {
      body.appendChild(el('h4', { text: 'structuredContent' }));
      body.appendChild(el('div', { className: 'tree' }, tree(b.structuredContent)));
      if (r.status === 422 && isObject(b.structuredContent) && Array.isArray(b.structuredContent.errors)) {
        markFailures(b.structuredContent.errors);
      }
    }
    appendRaw(body, r.text);
  }

  function appendRaw(parent, text) {
    var pretty = text;
    try { pretty = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* keep as is */ }
    parent.appendChild(el('details', { className: 'raw-response' }, el('summary', { text: 'Raw response' }), el('pre', { text: pretty })));
  }

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

  function renderContent(c) {
    if (!isObject(c)) { return el('pre', { text: JSON.stringify(c) }); }
    var node, src;
    switch (c.type) {
      case 'text':
        node = block('text', 'text');
        node.appendChild(el('pre', { className: 'text', text: String(c.text) }));
        return node;
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
        node.appendChild(el('pre', { text: JSON.stringify(c, null, 2) }));
        return node;
    }
  }

  // tree renders a JSON value as nested, collapsible lists.
  function tree(v) {
    if (Array.isArray(v) || isObject(v)) {
      var keys = Object.keys(v);
      var d = el('details', { open: true });
      var n = keys.length;
      d.appendChild(el('summary', { className: 'muted', text: Array.isArray(v) ? '[' + n + (n === 1 ? ' item]' : ' items]') : '{' + n + (n === 1 ? ' key}' : ' keys}') }));
      var ul = el('ul');
      keys.forEach(function (k) {
        ul.appendChild(el('li', null, el('span', { className: 'tree-key', text: k + ': ' }), tree(v[k])));
      });
      d.appendChild(ul);
      return d;
    }
    var t = v === null ? 'null' : typeof v;
    return el('span', { className: 'tree-value tree-' + t, text: JSON.stringify(v) });
  }

  loadList();
}());
