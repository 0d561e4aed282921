#!/usr/bin/env python3
"""The layer table is the build (issue 45): checks the project's includes against it.

usage: check_layers.py MANIFEST SOURCE_DIR [--inject FILE:INCLUDE]

MANIFEST is the build's layers.json (cmake/layers.cmake writes it at configure
time): every layer's library name, folder and declared dependencies. Checks:

  1. the declared graph has no cycle (cnx_layer also refuses a dependency not
     declared before it);
  2. every `#include "..."` of every source under a layer's folder names a file
     of its own layer or of a layer it depends on, directly or through others;
  3. every project include anywhere (tests/, bench/ too, which may use
     everything) names a file that exists;
  4. README.md's "Layout" table has a row per layer whose "may depend on"
     column names exactly the declared dependencies.

--inject FILE:INCLUDE adds one include to FILE before checking (the ctest that
shows a wrong include is caught). Exit 0 when all holds, 1 with one line per
violation, 2 on bad arguments.
"""
import json
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE = ('.h', '.hpp', '.cc', '.cpp')
PROJECT_TOPS = ('broker_model/', 'sim/', 'proto/')


def load(manifest):
    with open(manifest) as f:
        layers = json.load(f)['layers']
    return {l['name']: l for l in layers}


def closures(layers):
    """name -> every layer it may use (itself included); raises on a cycle."""
    done, out = set(), {}

    def visit(name, path):
        if name in path:
            raise ValueError('cycle: ' + ' -> '.join(path + [name]))
        if name in done:
            return out[name]
        if name not in layers:
            raise ValueError('%s depends on %s, which is not a layer' % (path[-1] if path else '?', name))
        reach = {name}
        for d in layers[name]['depends']:
            reach |= visit(d, path + [name])
        done.add(name)
        out[name] = reach
        return reach

    for n in layers:
        visit(n, [])
    return out


def owner(path, folders):
    """The layer whose folder is the longest prefix of `path`, or None."""
    best = None
    for folder, name in folders.items():
        if path == folder or path.startswith(folder + '/'):
            if best is None or len(folder) > len(best[0]):
                best = (folder, name)
    return best[1] if best else None


def includes(path, injected):
    found = []
    with open(path, errors='replace') as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                found.append((n, m.group(1)))
    found += [(0, inc) for inc in injected]
    return found


def generated(include, source_dir):
    # protoc's output lives in the build tree: proto/PulsarApi.pb.h from proto/PulsarApi.proto.
    return include.endswith('.pb.h') and os.path.exists(os.path.join(source_dir, include[:-5] + '.proto'))


def check_sources(layers, reach, source_dir, inject):
    folders = {l['folder']: name for name, l in layers.items()}
    problems = []
    for top in ('broker_model', 'sim', 'proto', 'tests', 'bench'):
        for d, dirs, files in os.walk(os.path.join(source_dir, top)):
            dirs[:] = [x for x in dirs if x not in ('.venv', 'node_modules', 'target', 'build', 'corpus')]
            for f in sorted(files):
                if not f.endswith(SOURCE):
                    continue
                rel = os.path.relpath(os.path.join(d, f), source_dir)
                mine = owner(rel, folders)
                for line, inc in includes(os.path.join(d, f), inject.get(rel, [])):
                    if not inc.startswith(PROJECT_TOPS):
                        continue  # a neighbour ("serve_client.h") or a system header
                    where = '%s:%s: #include "%s"' % (rel, line or 'injected', inc)
                    if not os.path.exists(os.path.join(source_dir, inc)) and not generated(inc, source_dir):
                        problems.append('%s: no such file' % where)
                        continue
                    theirs = owner(inc, folders)
                    if mine is None:
                        continue  # tests/, bench/: may use everything
                    if theirs is None:
                        problems.append('%s: %s is in no layer (cmake/layers.cmake)' % (where, inc))
                    elif theirs not in reach[mine]:
                        problems.append('%s: %s may not use %s (%s declares %s)' % (
                            where, mine, theirs, layers[mine]['folder'],
                            ', '.join(layers[mine]['depends']) or 'no dependency'))
    return problems


def readme_rows(source_dir):
    rows = {}
    with open(os.path.join(source_dir, 'README.md')) as f:
        text = f.read()
    start = text.find('| path | what lives there | may depend on |')
    if start < 0:
        return None
    for line in text[start:].splitlines()[2:]:
        if not line.startswith('|'):
            break
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) != 3:
            continue
        path = cells[0].strip('`').rstrip('/')
        rows[path] = re.findall(r'`([^`]+)`', cells[2])
    return rows


def check_readme(layers, source_dir):
    rows = readme_rows(source_dir)
    if rows is None:
        return ['README.md: no "Layout" table (| path | what lives there | may depend on |)']
    problems = []
    by_folder = {l['folder']: name for name, l in layers.items()}
    for name, layer in layers.items():
        folder = layer['folder']
        if folder not in rows:
            problems.append('README.md: the Layout table has no row for %s/ (layer %s)' % (folder, name))
            continue
        top = folder.split('/')[0]
        named = set()
        for token in rows[folder]:
            token = token.rstrip('/')
            full = token if token.startswith(PROJECT_TOPS) or token == 'proto' else top + '/' + token
            if full in by_folder:
                named.add(full)
            else:
                problems.append('README.md: row %s/ names `%s`, which is not a layer' % (folder, token))
        declared = {layers[d]['folder'] for d in layer['depends']}
        for missing in sorted(declared - named):
            problems.append('README.md: row %s/ does not name %s/, which cmake/layers.cmake declares' % (folder, missing))
        for extra in sorted(named - declared):
            problems.append('README.md: row %s/ names %s/, which the build does not declare' % (folder, extra))
    return problems


def main(argv):
    args = [a for a in argv[1:]]
    inject = {}
    if '--inject' in args:
        i = args.index('--inject')
        if i + 1 >= len(args) or ':' not in args[i + 1]:
            print('check_layers.py: --inject FILE:INCLUDE', file=sys.stderr)
            return 2
        f, inc = args[i + 1].split(':', 1)
        inject.setdefault(f, []).append(inc)
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    manifest, source_dir = args
    try:
        layers = load(manifest)
        reach = closures(layers)
    except (OSError, ValueError, KeyError) as e:
        print('check_layers.py: %s: %s' % (manifest, e))
        return 1
    problems = check_sources(layers, reach, source_dir, inject) + check_readme(layers, source_dir)
    for p in problems:
        print(p)
    files = sum(1 for _ in problems)
    print('%d layer(s), %d violation(s)' % (len(layers), files))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
