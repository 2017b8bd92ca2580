#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""doc_drift.py ROOT - the docs against the code's own tables.

Keys: the plugin's key table, config_keys[] (spank-ibnet/ibnet_config.c,
the all-to-all's names from ibnet_a2a_keys[]), against the admin guide's
key table, spank-ibnet(8) and the example plugstack.conf line.
Variables: every SLURM_IBNET_* name the shipped code reads or sets
(spank-ibnet/, contract/, alltoall/, rsocket-gate/, scripts/, lmod-modules/)
against the user guide, and every SLURM_IBNET_* name the user guide shows
against the code.
MPI variables: every variable of the per-MPI table (spank-ibnet/ibnet_env_mpi.c,
env_rules[]) and of the all-to-all's MPI choices (contract/ibnet_a2a_settings.c,
ibnet_a2a_mpi_choices[]) against the admin guide's "What each transport sets"
table, both ways.
Figures: every measured figure (0.93x, 1.03-1.09x, 38.7 ms, 7%) in the admin
and user guides, the architecture and the README against the benchmark pages
(docs/benchmarks.md, docs/bench/*.md).
Prints one line per mismatch and exits 1 on any; prints a summary and exits
0 otherwise.
"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'


def read(path):
    with open(os.path.join(root, path), encoding='utf-8', errors='replace') as f:
        return f.read()


problems = []

# The keys, from the one table the parser uses: config_keys[] in
# spank-ibnet/ibnet_config.c, one record per key, in order. A record of an
# all-to-all setting names its row of ibnet_a2a_keys[] (A2A_KEY(ROW), or
# .a2a = ROW without a .name), whose config_key is the key.
def strip_comments(text):
    return re.sub(r'/\*.*?\*/', '', text, flags=re.S)


def a2a_key_names():
    """ROW -> config_key, from whichever C file holds ibnet_a2a_keys[]."""
    for path in sorted(glob.glob(os.path.join(root, '**', '*.c'), recursive=True)):
        with open(path, encoding='utf-8', errors='replace') as f:
            text = strip_comments(f.read())
        m = re.search(r'ibnet_a2a_keys\[[A-Z0-9_]*\]\s*=\s*\{(.*?)\n\};', text, re.S)
        if m:
            return dict(re.findall(r'\[(IBNET_A2A_[A-Z_]+)\]\s*=\s*\{\s*"([a-z_]+)"', m.group(1)))
    sys.exit('doc_drift: no ibnet_a2a_keys[] table in any C file')


config_c = strip_comments(read('spank-ibnet/ibnet_config.c'))
m = re.search(r'config_keys\[\]\s*=\s*\{(.*?)\n\};', config_c, re.S)
if not m:
    sys.exit('doc_drift: no config_keys[] table in spank-ibnet/ibnet_config.c')
a2a_names = None
keys = []
for record in re.finditer(r'A2A_KEY\((IBNET_A2A_[A-Z_]+)\)|\{(.*?)\}\s*,', m.group(1), re.S):
    if record.group(1):
        row = record.group(1)
    else:
        name = re.search(r'\.name\s*=\s*"([a-z_]+)"', record.group(2))
        if name:
            keys.append(name.group(1))
            continue
        row = re.search(r'\.a2a\s*=\s*(IBNET_A2A_[A-Z_]+)', record.group(2))
        if not row:
            sys.exit('doc_drift: a record of config_keys[] with neither .name nor .a2a')
        row = row.group(1)
    a2a_names = a2a_names or a2a_key_names()
    if row not in a2a_names:
        sys.exit(f'doc_drift: config_keys[] names {row}, which ibnet_a2a_keys[] has no row for')
    keys.append(a2a_names[row])

admin = read('docs/admin-guide.md')
section = admin.split('## plugstack.conf keys', 1)[-1].split('\n## ', 1)[0]
admin_keys = re.findall(r'^\| `([a-z_]+)` \|', section, re.M)
man = read('docs/spank-ibnet.8')
man_keys = re.findall(r'(?:^\.BR? |^\.BI |\\fP)([a-z_]+)=', man, re.M)
example = read('docs/examples/ibnet.conf')

for k in keys:
    if k not in admin_keys:
        problems.append(f'key {k}: no row in the admin guide\'s "plugstack.conf keys" table')
    if k not in man_keys:
        problems.append(f'key {k}: not in spank-ibnet(8) (docs/spank-ibnet.8)')
    if not re.search(r'\b' + k + '=', example):
        problems.append(f'key {k}: not in the example config (docs/examples/ibnet.conf)')
for k in sorted(set(admin_keys) - set(keys)):
    problems.append(f'key {k}: in the admin guide\'s table, but the plugin knows no such key')
for k in sorted(set(man_keys) - set(keys)):
    problems.append(f'key {k}: in spank-ibnet(8), but the plugin knows no such key')

# The variables: whole names, and prefixes such as SLURM_IBNET_ORIG_.
NAME = re.compile(r'SLURM_IBNET_[A-Z0-9_]*')
code_files = []
for pattern in ('spank-ibnet/*.[ch]', 'contract/*.[ch]', 'alltoall/*.[ch]',
                'rsocket-gate/*.[ch]', 'scripts/*', 'scripts/*/*', 'lmod-modules/*/*.lua'):
    code_files += [p for p in glob.glob(os.path.join(root, pattern)) if os.path.isfile(p)]
code_names = set()
for path in code_files:
    with open(path, encoding='utf-8', errors='replace') as f:
        code_names.update(NAME.findall(f.read()))
code_names.discard('SLURM_IBNET_')
guide = read('docs/user-guide.md')
guide_names = set(NAME.findall(guide))

def guide_has_under(prefix):
    return any(g.startswith(prefix) for g in guide_names)


for name in sorted(code_names):
    if name in guide_names:
        continue
    # A prefix (SLURM_IBNET_ORIG_, SLURM_IBNET_ALLTOALL_*): some name under it.
    if name.endswith('_') and guide_has_under(name):
        continue
    # A table row may shorten a family: SLURM_IBNET_ALLTOALL_WINDOW, `_CREDITS`.
    family, _, last = name.rpartition('_')
    if last and f'`_{last}`' in guide and guide_has_under(family + '_'):
        continue
    problems.append(f'variable {name}: the code uses it, the user guide does not say what it is')
for name in sorted(guide_names):
    if name.endswith('_') or name in code_names:
        continue
    problems.append(f'variable {name}: in the user guide, but no shipped code uses it')

# The MPI variables, from the two tables the plan is made of.
mpi_c = read('spank-ibnet/ibnet_env_mpi.c')
m = re.search(r'env_rules\[\]\s*=\s*\{(.*?)\n\};', mpi_c, re.S)
if not m:
    sys.exit('doc_drift: no env_rules[] table in spank-ibnet/ibnet_env_mpi.c')
mpi_vars = set(re.findall(r'^\s*\{ "([A-Z][A-Za-z0-9_]+)",', m.group(1), re.M))
settings_c = read('contract/ibnet_a2a_settings.c')
m = re.search(r'ibnet_a2a_mpi_choices\[\]\s*=\s*\{(.*?)\n\};', settings_c, re.S)
if not m:
    sys.exit('doc_drift: no ibnet_a2a_mpi_choices[] table in contract/ibnet_a2a_settings.c')
mpi_vars |= set(re.findall(r'"([A-Z][A-Z0-9]*_[A-Za-z0-9_]+)"', m.group(1)))
sets = admin.split('## What each transport sets', 1)[-1].split('\n## ', 1)[0]
table_vars = set(re.findall(r'^\| `([A-Z][A-Za-z0-9_]+)` \|', sets, re.M))
ours = {'LD_PRELOAD', 'GAUSS_WDEF'}
for v in sorted(mpi_vars - table_vars):
    problems.append(f'MPI variable {v}: the plugin sets it, the admin guide\'s "What each transport sets" table has no row')
for v in sorted(table_vars - mpi_vars - ours):
    if not v.startswith('SLURM_IBNET_'):
        problems.append(f'MPI variable {v}: in the admin guide\'s "What each transport sets" table, but the plugin never sets it')

# The figures: every measured figure the guides quote (a ratio with a decimal
# point or a range, a time in ms, a percentage) must be one a benchmark page
# holds, docs/benchmarks.md or docs/bench/*.md: a figure from a run nobody can
# find, or from a run since replaced, fails. Examples (fenced or indented
# blocks) and `code` spans are not claims and are skipped.
FIGURE_DOCS = ('docs/admin-guide.md', 'docs/user-guide.md', 'docs/architecture.md', 'README.md')
NUM = r'\d+(?:,\d{3})*(?:\.\d+)?'
FIGURE = re.compile(
    r'(?<![\w.,/-])('
    rf'(?:\d+\.\d+|{NUM}-{NUM})x(?!\w)'        # 0.93x, 1.03-1.09x, 5-10x; not the rule's 2x
    rf'|{NUM}(?:(?:-| to ){NUM})? ms\b'          # 236.3 ms, 6 to 11 ms, 12-16 ms
    rf'|{NUM}(?:-{NUM})?%'                       # 2%, 7-10%
    r')')
# Not measurements, so on no benchmark page by right:
NOT_MEASURED = {
    '1 ms', '200 ms',   # the floor's bounds (tcp_rto_min 1ms to 200ms); 200 ms is also Linux's TCP_RTO_MIN
    '10 ms',            # the floor's default (tcp_rto_min=10ms)
    '4 ms', '8 ms', '12 ms', '20 ms',  # jiffies: a 4 ms tick at HZ=250, 2 jiffies at HZ=250 and HZ=100, 10 ms rounded up
    '1.3 ms',           # arithmetic: 16 KiB on the wire at 100 Mbit/s
    '1.25x',            # the window rule's constant (a growth must buy 1.25x more)
    '10%',              # the loss the floor's tests inject, and their tolerance
    '802.3x',           # IEEE 802.3x flow control, a standard's name
}
# Measured by a test the sentence names (tests/unit/tcp-floor-bpf.bats), not by a run.
TEST_MEASURED = {'12-16 ms', '204 ms'}


def benchmark_text():
    pages = ['docs/benchmarks.md'] + sorted(
        os.path.relpath(p, root) for p in glob.glob(os.path.join(root, 'docs', 'bench', '*.md')))
    return '\n'.join(read(p) for p in pages)


def prose(text):
    """The text a reader reads as claims, one entry per line of text: fenced and
    indented examples blanked, `code` spans taken out."""
    lines = text.split('\n')
    out = []
    fenced = in_example = False
    last_prose = 0      # the indent a paragraph of the last prose line has
    for line in lines:
        stripped = line.lstrip(' ')
        indent = len(line) - len(stripped) if not line.startswith('\t') else 8
        if stripped.startswith('```'):
            fenced = not fenced
            out.append('')
            continue
        if fenced:
            out.append('')
            continue
        if not stripped:
            out.append('')
            continue
        # An indented block: after a blank line, 4 more than the text around it.
        if (in_example or (out and out[-1] == '')) and indent >= last_prose + 4:
            in_example = True
            out.append('')
            continue
        in_example = False
        item = re.match(r'(?:[-*+]|\d+\.|:)\s+', stripped)
        last_prose = indent + (item.end() if item else 0)
        out.append(line)
    text = '\n'.join(out)
    return re.sub(r'`[^`]*`', lambda m: '\n' * m.group().count('\n'), text)


def quoted_in(fig, text):
    """fig as a whole figure of text: 38.7 ms is not in 638.7 ms, nor 2.5 ms in 12.5 ms."""
    return re.search(r'(?<![\d.,])' + re.escape(fig) + r'(?!\d)', text) is not None


def check_figures():
    bench = benchmark_text()
    for path in FIGURE_DOCS:
        for lineno, line in enumerate(prose(read(path)).split('\n'), 1):
            for fig in FIGURE.findall(line):
                if fig in NOT_MEASURED or fig in TEST_MEASURED or quoted_in(fig, bench):
                    continue
                problems.append(f'figure {fig!r} ({path}:{lineno}): in no benchmark page '
                                '(docs/benchmarks.md, docs/bench/*.md)')


check_figures()

for p in problems:
    print(p)
if problems:
    sys.exit(1)
print(f'doc_drift: {len(keys)} keys and {len(code_names)} variables, each documented')
