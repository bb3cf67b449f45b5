//! The crate's one-way layers, checked from the source: `src/lib.rs` draws the layer map (its
//! ```text block, the top layer first); every module of `src/` belongs to one layer, is named
//! on its layer's line of the map (so the map cannot leave a new module out), imports
//! only from its own layer and those below (every `crate::` and `super::` path counts, in `use`
//! lines and inline, tests included), and the modules of one layer import each other without a
//! cycle. A module is a layer's file or folder (`game/deal.rs`, `game/hand/`); a folder's files
//! are one module. A layer's `mod.rs` only declares its modules.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The lines of the map in lib.rs's documentation, one per layer, top layer first (a line that
/// starts further in continues the one above).
fn map() -> Vec<String> {
    let lib = fs::read_to_string(src().join("lib.rs")).unwrap();
    let start = lib.find("//! ```text\n").expect("lib.rs draws the layer map in a ```text block");
    let block = &lib[start + 12..];
    let end = block.find("//! ```").expect("the map's block ends");
    let mut v: Vec<String> = Vec::new();
    for l in block[..end].lines().map(|l| l.trim_start_matches("//!")).filter(|l| !l.trim().is_empty()) {
        match v.last_mut() {
            Some(last) if l.starts_with("  ") => *last = format!("{last} {}", l.trim()),
            _ => v.push(l.trim().to_string()),
        }
    }
    v
}

/// The layer a line of the map is about: its first word (`run/` → run).
fn layer_of(line: &str) -> String {
    line.split(|c: char| c == '/' || c.is_whitespace()).next().unwrap().to_string()
}

/// The layers, lowest first, read from the map.
fn layers() -> Vec<String> {
    map().iter().rev().map(|l| layer_of(l)).collect()
}

/// The modules of `src/` (a folder layer's files and folders, `mod.rs` aside) that the map's
/// line for their layer does not name as a word (`run/table`).
fn unnamed(map: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for line in map {
        let layer = layer_of(line);
        let dir = src().join(&layer);
        if !dir.is_dir() {
            continue; // a one-file layer (`policy`) is its own module
        }
        let words: BTreeSet<&str> = line.split(|c: char| !(c.is_alphanumeric() || c == '_')).collect();
        let mut names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir() || p.extension().is_some_and(|x| x == "rs"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .filter(|n| n != "mod")
            .collect();
        names.sort();
        out.extend(names.into_iter().filter(|n| !words.contains(n.as_str())).map(|n| format!("{layer}/{n}")));
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The source without comments, string and char literals (their text is not code).
fn code_only(s: &str) -> String {
    let b: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if b[i] == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if b[i] == 'r' && (b.get(i + 1) == Some(&'"') || b.get(i + 1) == Some(&'#')) && (i == 0 || !b[i - 1].is_alphanumeric()) {
            // a raw string r"..." or r#"..."#
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(b[i]);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if b[i] == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == '\'' && (b.get(i + 2) == Some(&'\'') || b.get(i + 1) == Some(&'\\')) {
            // a char literal ('x', '\n', '\u{..}'); lifetimes ('a) are left alone
            let mut j = i + 1;
            while j < b.len() && b[j] != '\'' {
                if b[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            i = j + 1;
            out.push_str("' '");
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// The module path of a file (`src/game/hand/play.rs` → game, hand, play).
fn module_of(rel: &Path) -> Vec<String> {
    let mut v: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = v.pop().unwrap();
    if last != "mod.rs" {
        v.push(last.trim_end_matches(".rs").to_string());
    }
    v
}

/// The node a module path belongs to: (layer, module) (`game::hand::play` → game, hand), or
/// the layer itself for a one-file layer (`policy`).
fn node(path: &[String], layers: &[String]) -> Option<(usize, String)> {
    let layer = layers.iter().position(|l| *l == path[0])?;
    Some((layer, path.get(1).map_or(path[0].clone(), |m| format!("{}::{m}", path[0]))))
}

/// Every path this file reaches into the crate: `crate::a::b` and `super::…`, resolved to
/// absolute module paths (brace groups expanded one level: `crate::{a::x, b}`).
fn references(code: &str, file_module: &[String]) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    // the inline modules open at each position (`mod tests { … }`): a `super` inside one
    // names the file's own module
    let mut depth = 0i32;
    let mut inline: Vec<i32> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' {
            depth += 1;
        } else if c == '}' {
            depth -= 1;
            if inline.last() == Some(&depth) {
                inline.pop();
            }
        }
        let at_word = i == 0 || !ident(chars[i - 1]);
        let rest: String = chars[i..chars.len().min(i + 8)].iter().collect();
        if at_word && rest.starts_with("mod ") {
            // `mod name {` opens an inline module; `mod name;` declares a file
            let mut j = i + 4;
            while j < chars.len() && (ident(chars[j]) || chars[j].is_whitespace()) {
                j += 1;
            }
            if chars.get(j) == Some(&'{') {
                inline.push(depth);
            }
        }
        for (root, skip) in [("crate::", 7), ("super::", 7)] {
            if !(at_word && rest.starts_with(root)) {
                continue;
            }
            let mut base: Vec<String> = if root == "crate::" {
                Vec::new()
            } else {
                let mut m: Vec<String> = file_module.to_vec();
                // one level per `super::`, from the innermost inline module
                let mut k = i;
                let mut levels = 0;
                while chars[k..].iter().collect::<String>().starts_with("super::") {
                    levels += 1;
                    k += 7;
                }
                let inner = inline.len() as i32;
                let up = (levels - inner).max(0) as usize;
                m.truncate(m.len().saturating_sub(up));
                i = k - 7; // continue after the last `super::`
                m
            };
            let mut j = i + skip;
            let mut segs: Vec<String> = Vec::new();
            loop {
                if chars.get(j) == Some(&'{') {
                    // a group: its members' first segments
                    let mut k = j + 1;
                    let mut level = 1;
                    let mut member = String::new();
                    let mut members = Vec::new();
                    while k < chars.len() && level > 0 {
                        match chars[k] {
                            '{' => level += 1,
                            '}' => level -= 1,
                            ',' if level == 1 => members.push(std::mem::take(&mut member)),
                            ch if level == 1 => member.push(ch),
                            _ => {}
                        }
                        k += 1;
                    }
                    members.push(member);
                    for m in members {
                        let m = m.trim();
                        let first: String = m.chars().take_while(|&ch| ident(ch)).collect();
                        if first.is_empty() || first == "self" {
                            continue;
                        }
                        let mut p = base.clone();
                        p.extend(segs.iter().cloned());
                        p.extend(m.split("::").map(|s| s.trim().chars().take_while(|&ch| ident(ch)).collect::<String>()).filter(|s| !s.is_empty()));
                        out.push(p);
                    }
                    segs.clear();
                    break;
                }
                let s: String = chars[j..].iter().take_while(|&&ch| ident(ch)).collect();
                if s.is_empty() {
                    break;
                }
                j += s.len();
                segs.push(s);
                if chars[j..].iter().collect::<String>().starts_with("::") {
                    j += 2;
                } else {
                    break;
                }
            }
            if !segs.is_empty() {
                base.extend(segs);
                out.push(base);
            }
            break;
        }
        i += 1;
    }
    out
}

struct Graph {
    layers: Vec<String>,
    /// node → (its layer, the nodes it imports, with the first file that does)
    nodes: BTreeMap<String, (usize, BTreeMap<String, String>)>,
    problems: Vec<String>,
}

fn graph() -> Graph {
    let layers = layers();
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    let mut g = Graph { layers: layers.clone(), nodes: BTreeMap::new(), problems: Vec::new() };
    for f in &files {
        let rel = f.strip_prefix(src()).unwrap();
        if rel == Path::new("lib.rs") {
            continue;
        }
        let text = fs::read_to_string(f).unwrap();
        let code = code_only(&text);
        let module = module_of(rel);
        let Some((layer, me)) = node(&module, &layers) else {
            g.problems.push(format!("{}: not in any layer of lib.rs's map", rel.display()));
            continue;
        };
        if module.len() == 1 && rel.ends_with("mod.rs") {
            // a layer's face: declarations only
            for line in code.lines().map(str::trim).filter(|l| !l.is_empty()) {
                if !(line.starts_with("pub mod ") || line.starts_with("mod ")) {
                    g.problems.push(format!("{}: a layer's mod.rs only declares its modules, found {line:?}", rel.display()));
                }
            }
            continue;
        }
        let entry = g.nodes.entry(me.clone()).or_insert((layer, BTreeMap::new()));
        for path in references(&code, &module) {
            if path.is_empty() {
                continue;
            }
            let Some((to_layer, to)) = node(&path, &layers) else {
                g.problems.push(format!("{}: `{}` is not a path into a layer", rel.display(), path.join("::")));
                continue;
            };
            if to == me {
                continue;
            }
            if to_layer > layer {
                g.problems.push(format!(
                    "{}: {me} (layer {}) imports {to} of the higher layer {}",
                    rel.display(),
                    layers[layer],
                    layers[to_layer]
                ));
            }
            entry.1.entry(to).or_insert_with(|| rel.display().to_string());
        }
    }
    g
}

/// A cycle among the nodes, if any (depth-first search).
fn cycle(g: &Graph) -> Option<Vec<String>> {
    fn visit(n: &str, g: &Graph, state: &mut BTreeMap<String, u8>, stack: &mut Vec<String>) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        if let Some((_, deps)) = g.nodes.get(n) {
            for d in deps.keys() {
                match state.get(d.as_str()).copied().unwrap_or(0) {
                    1 => {
                        let at = stack.iter().position(|s| s == d).unwrap();
                        let mut c = stack[at..].to_vec();
                        c.push(d.clone());
                        return Some(c);
                    }
                    0 => {
                        if let Some(c) = visit(d, g, state, stack) {
                            return Some(c);
                        }
                    }
                    _ => {}
                }
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.nodes.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn lower_layers_never_import_higher_ones() {
    let g = graph();
    assert_eq!(
        g.layers,
        ["util", "rules", "game", "infoset", "encode", "agent", "search", "policy", "learn", "run"],
        "lib.rs's map changed: update this list with it"
    );
    assert!(g.problems.is_empty(), "layer violations:\n{}", g.problems.join("\n"));
    // the map is complete: every layer has modules
    let used: BTreeSet<usize> = g.nodes.values().map(|(l, _)| *l).collect();
    assert_eq!(used.len(), g.layers.len(), "a layer of the map has no module");
}

#[test]
fn the_map_names_every_module() {
    assert_eq!(unnamed(&map()), Vec::<String>::new(), "lib.rs's map leaves these modules out: name each on its layer's line");
    // not vacuous: a module dropped from its line is reported
    let dropped: Vec<String> = map().iter().map(|l| if layer_of(l) == "run" { l.replace("sim", "") } else { l.clone() }).collect();
    assert_eq!(unnamed(&dropped), ["run/sim"]);
}

#[test]
fn the_module_graph_has_no_cycle() {
    let g = graph();
    assert!(g.nodes.len() > 30, "the graph was read ({} modules)", g.nodes.len());
    if let Some(c) = cycle(&g) {
        let hops: Vec<String> = c.windows(2).map(|w| format!("{} → {} (in {})", w[0], w[1], g.nodes[&w[0]].1[&w[1]])).collect();
        panic!("a cycle of imports:\n{}", hops.join("\n"));
    }
}

#[test]
fn the_reader_sees_every_kind_of_import() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let code = code_only(
        "use crate::rules::card::{Card, KINDS};\nuse crate::{game::hand::Game, util::rng};\nuse super::view::SeatView;\n\
         fn f() { let s = \"crate::run::sim\"; crate::search::pimc::pimc(); } // crate::learn::x\n\
         #[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::greedy;\n}\n",
    );
    let refs = references(&code, &m("agent::random"));
    assert_eq!(
        refs,
        vec![
            m("rules::card::Card"),
            m("rules::card::KINDS"),
            m("game::hand::Game"),
            m("util::rng"),
            m("agent::view::SeatView"),
            m("search::pimc::pimc"),
            m("agent::greedy"),
        ]
    );
}

/// Inside a folder module, the graph of its files (`mod.rs` aside: the folder's face, which
/// may hold the folder's main type that its files extend) and the first file that imports
/// each: `infoset::determinize::counting` → `infoset::determinize::levels`, …
fn file_graph(folder: &[&str]) -> Graph {
    let dir = folder.iter().fold(src(), |p, s| p.join(s));
    let mut files = Vec::new();
    rust_files(&dir, &mut files);
    files.sort();
    let mut g = Graph { layers: Vec::new(), nodes: BTreeMap::new(), problems: Vec::new() };
    for f in &files {
        let rel = f.strip_prefix(src()).unwrap();
        let module = module_of(rel);
        if module.len() != folder.len() + 1 {
            continue; // mod.rs, or a deeper folder
        }
        let me = module.join("::");
        let code = code_only(&fs::read_to_string(f).unwrap());
        let entry = g.nodes.entry(me.clone()).or_insert((0, BTreeMap::new()));
        for path in references(&code, &module) {
            if path.len() > folder.len() && path[..folder.len()] == folder[..] {
                let to = path[..folder.len() + 1].join("::");
                if to != me && dir.join(format!("{}.rs", path[folder.len()])).exists() {
                    entry.1.entry(to).or_insert_with(|| rel.display().to_string());
                }
            }
        }
    }
    g
}

/// Issue 39: the files of the determinizer import each other one way (they had three loops:
/// counting ↔ levels, turns ↔ timing, and turns → multisets → levels with levels reaching
/// back through counting). Every folder module of the core is held to it.
#[test]
fn the_files_of_a_folder_module_import_each_other_one_way() {
    // every folder of a layer's folder (`infoset/determinize/`, `game/hand/`, `rules/follow/`)
    let mut folders: Vec<[String; 2]> = Vec::new();
    for layer in fs::read_dir(src()).unwrap().flatten().filter(|e| e.path().is_dir()) {
        for sub in fs::read_dir(layer.path()).unwrap().flatten().filter(|e| e.path().is_dir()) {
            folders.push([layer.file_name().to_string_lossy().into_owned(), sub.file_name().to_string_lossy().into_owned()]);
        }
    }
    folders.sort();
    assert!(folders.len() >= 3, "{folders:?}");
    for folder in &folders {
        let folder: Vec<&str> = folder.iter().map(String::as_str).collect();
        let folder = &folder[..];
        let g = file_graph(folder);
        if let Some(c) = cycle(&g) {
            let hops: Vec<String> = c.windows(2).map(|w| format!("  {} → {} (in {})", w[0], w[1], g.nodes[&w[0]].1[&w[1]])).collect();
            panic!("a cycle of imports among the files of {}:\n{}", folder.join("/"), hops.join("\n"));
        }
    }
    // not vacuous: the determinizer's files import each other, and an edge back is found
    let mut g = file_graph(&["infoset", "determinize"]);
    assert!(g.nodes["infoset::determinize::counting"].1.contains_key("infoset::determinize::levels"));
    g.nodes.get_mut("infoset::determinize::levels").unwrap().1.insert("infoset::determinize::counting".into(), "test".into());
    assert!(cycle(&g).is_some());
}
