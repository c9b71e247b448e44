#!/usr/bin/env python3
"""Validate the Hearth content files (stdlib only).

Usage: python3 Shared/Content/validate.py
Exits 0 when every rule passes, 1 otherwise. Prints counts for each file.
"""
import collections
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
ERRORS = []


def err(where, msg):
    ERRORS.append(f"{where}: {msg}")


def load(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as fh:
        return json.load(fh)


CANON = ["peanut", "tree_nut", "milk", "egg", "wheat", "gluten", "soy", "fish", "shellfish",
         "sesame", "mustard", "celery", "lupin", "sulphites", "mollusc"]
CUISINES = {"italian", "mexican", "indian", "chinese", "japanese", "thai", "mediterranean", "american",
            "french", "middle-eastern", "korean", "vietnamese", "greek", "spanish", "british"}
MAINS = {"chicken", "beef", "pork", "lamb", "fish", "shrimp", "tofu", "beans", "lentils", "eggs",
         "chickpeas", "pasta", "rice", "vegetables", "turkey"}
UNITS = {"g", "kg", "ml", "l", "tsp", "tbsp", "cup", "piece", "pinch"}
AISLES = {"produce", "meat", "seafood", "dairy", "bakery", "pantry", "spices", "frozen", "international", "eggs"}
KINDS = ["safety", "discipline", "routines", "development", "tips", "nutrition"]
# Largest sensible quantity per unit for a family dinner.
UNIT_MAX = {"g": 2000, "kg": 3, "ml": 2000, "l": 3, "tsp": 6, "tbsp": 10, "cup": 6, "piece": 24, "pinch": 4}
# Ingredient-name words meaning a recipe is not vegetarian (checked as whole words).
NON_VEG_TERMS = ["chicken", "beef", "pork", "lamb", "turkey", "bacon", "ham", "chorizo", "sausages",
                 "salmon", "fish", "haddock", "mackerel", "tuna", "shrimp", "squid", "mussels", "anchovy",
                 "oyster sauce", "worcestershire sauce", "curry paste", "kimchi", "curry roux", "gelatin"]


def term_re(term):
    return re.compile(r"(?<![a-z])" + re.escape(term) + r"(s|es)?(?![a-z])")


def has_term(name, term):
    return bool(term_re(term).search(name))


# ---------------------------------------------------------------- allergen synonyms
def check_synonyms():
    syn = load("allergen_synonyms.json")
    where = "allergen_synonyms.json"
    if syn.get("canonical") != CANON:
        err(where, "canonical list differs from the canonical allergen set")
    decl = syn.get("declarations", {})
    terms = syn.get("ingredient_terms", {})
    exc = syn.get("term_exceptions", {})
    for k, v in decl.items():
        if k != k.lower():
            err(where, f"declaration key not lower-case: {k}")
        if not v or any(a not in CANON for a in v):
            err(where, f"declaration {k!r} maps to non-canonical {v}")
        if "wheat" in v and "gluten" not in v:
            err(where, f"declaration {k!r} has wheat without gluten")
    for must, want in {"nuts": {"peanut", "tree_nut"}, "dairy": {"milk"}, "gluten": {"gluten", "wheat"},
                       "peanut": {"peanut"}, "shellfish": {"shellfish"}, "lactose": {"milk"}}.items():
        if not want <= set(decl.get(must, [])):
            err(where, f"declaration {must!r} must include {sorted(want)}")
    for a in CANON:
        if a not in decl.get(a, []):
            err(where, f"canonical {a} is not declarable under its own name")
        if not terms.get(a):
            err(where, f"ingredient_terms missing or empty for {a}")
    for k in terms:
        if k not in CANON:
            err(where, f"ingredient_terms has non-canonical key {k}")
    for k in exc:
        if k not in CANON:
            err(where, f"term_exceptions has non-canonical key {k}")
    print(f"allergen_synonyms.json: {len(decl)} declarations, "
          f"{sum(len(v) for v in terms.values())} ingredient terms over {len(terms)} allergens")
    return syn


# ---------------------------------------------------------------- recipes
def check_recipes(syn):
    recipes = load("recipes.json")
    where = "recipes.json"
    terms = syn["ingredient_terms"]
    exc = syn.get("term_exceptions", {})
    if not isinstance(recipes, list):
        err(where, "top level must be an array")
        return []
    ids = set()
    item_sig = {}
    item_units = collections.defaultdict(set)
    for idx, r in enumerate(recipes):
        rid = r.get("id", f"#{idx}")
        w = f"{where} {rid}"
        for key in ["id", "title", "cuisine", "minutes", "servings", "kid_friendly", "main_ingredient",
                    "tags", "description", "ingredients", "allergens", "steps"]:
            if key not in r:
                err(w, f"missing {key}")
        if set(r) - {"id", "title", "cuisine", "minutes", "servings", "kid_friendly", "main_ingredient",
                     "tags", "description", "ingredients", "allergens", "steps"}:
            err(w, f"unexpected keys {set(r)}")
        if not re.fullmatch(r"rcp-\d{3}-[a-z0-9]+(-[a-z0-9]+)*", str(rid)):
            err(w, "bad id format")
        if rid in ids:
            err(w, "duplicate id")
        ids.add(rid)
        if r.get("cuisine") not in CUISINES:
            err(w, f"bad cuisine {r.get('cuisine')}")
        if r.get("main_ingredient") not in MAINS:
            err(w, f"bad main_ingredient {r.get('main_ingredient')}")
        mins = r.get("minutes")
        if not isinstance(mins, int) or not 10 <= mins <= 120:
            err(w, f"minutes out of range: {mins}")
        if not isinstance(r.get("servings"), int) or not 1 <= r["servings"] <= 12:
            err(w, "bad servings")
        if not isinstance(r.get("kid_friendly"), bool):
            err(w, "kid_friendly must be bool")
        desc = r.get("description", "")
        nsent = len(re.findall(r"[.!?](\s|$)", desc))
        if not desc or not 1 <= nsent <= 2:
            err(w, f"description must be 1-2 sentences (found {nsent})")
        steps = r.get("steps", [])
        if len(steps) < 2 or any(not isinstance(s, str) or len(s) < 10 for s in steps):
            err(w, "needs at least 2 real steps")
        tags = r.get("tags", [])
        if len(tags) != len(set(tags)) or any(t != t.lower() for t in tags):
            err(w, "tags must be unique lower-case strings")
        if ("quick" in tags) != (isinstance(mins, int) and mins <= 30):
            err(w, "tag 'quick' must be present exactly when minutes <= 30")
        union = set()
        names = set()
        veg = True
        for ing in r.get("ingredients", []):
            name = ing.get("item", "")
            iw = f"{w} [{name}]"
            if set(ing) != {"item", "quantity", "unit", "aisle", "allergens"}:
                err(iw, f"ingredient keys {sorted(ing)}")
            if name != name.lower() or not name.strip():
                err(iw, "item must be lower-case and non-empty")
            if name in names:
                err(iw, "duplicate ingredient in recipe")
            names.add(name)
            q = ing.get("quantity")
            if not isinstance(q, (int, float)) or isinstance(q, bool) or q <= 0:
                err(iw, "quantity must be a positive number")
            u = ing.get("unit")
            if u not in UNITS:
                err(iw, f"bad unit {u}")
            elif isinstance(q, (int, float)) and q > UNIT_MAX[u]:
                err(iw, f"implausible quantity {q} {u}")
            if ing.get("aisle") not in AISLES:
                err(iw, f"bad aisle {ing.get('aisle')}")
            al = ing.get("allergens", [])
            if any(a not in CANON for a in al) or len(al) != len(set(al)):
                err(iw, f"bad allergens {al}")
            if "wheat" in al and "gluten" not in al:
                err(iw, "wheat without gluten")
            union |= set(al)
            sig = (ing.get("aisle"), tuple(sorted(al)))
            if name in item_sig and item_sig[name][0] != sig:
                err(iw, f"inconsistent aisle/allergens vs {item_sig[name][1]}")
            item_sig.setdefault(name, (sig, rid))
            item_units[name].add(u)
            # keyword-based tagging checks, both directions
            for a, tl in terms.items():
                if any(name == e or has_term(name, e) for e in exc.get(a, [])):
                    continue
                hit = any(has_term(name, t) for t in tl)
                if hit and a not in al:
                    err(iw, f"name suggests {a} but it is not tagged")
            for a in al:
                if not any(has_term(name, t) for t in terms.get(a, [])):
                    err(iw, f"tagged {a} but no ingredient_term for {a} matches the name")
            if any(has_term(name, t) for t in NON_VEG_TERMS) or ing.get("aisle") in ("meat", "seafood"):
                veg = False
        declared = r.get("allergens", [])
        if len(declared) != len(set(declared)) or set(declared) != union:
            err(w, f"allergens {declared} != union of ingredients {sorted(union)}")
        if "vegetarian" in tags and not veg:
            err(w, "tagged vegetarian but has meat/fish ingredients")
        if veg and "vegetarian" not in tags:
            err(w, "meat-free but not tagged vegetarian")
        vegan = veg and not ({"milk", "egg"} & union) and "honey" not in names
        if ("vegan" in tags) != vegan:
            err(w, "vegan tag inconsistent with ingredients")
    # naming consistency across the catalogue
    allnames = set(item_sig)
    for n in allnames:
        if n + "s" in allnames or n + "es" in allnames:
            err(where, f"singular/plural duplicates: {n!r}")
    for n, units in item_units.items():
        if n == "garlic clove" and units != {"piece"}:
            err(where, "garlic clove must always be in piece")
        if n == "olive oil" and units != {"tbsp"}:
            err(where, "olive oil must always be in tbsp")
    multi = {n: sorted(u) for n, u in item_units.items() if len(u) > 1}
    if "milk" not in multi:
        err(where, "milk should appear with more than one unit (unit conversion coverage)")
    if not any("rice" in n for n in multi):
        err(where, "some rice should appear with more than one unit")
    # spread rules
    n = len(recipes)
    cz = collections.Counter(r.get("cuisine") for r in recipes)
    mz = collections.Counter(r.get("main_ingredient") for r in recipes)
    kid = sum(1 for r in recipes if r.get("kid_friendly") is True)
    na = sum(1 for r in recipes if not r.get("allergens"))
    veg = sum(1 for r in recipes if "vegetarian" in r.get("tags", []))
    vegan = sum(1 for r in recipes if "vegan" in r.get("tags", []))
    strict = {"peanut", "tree_nut", "sesame", "shellfish", "fish", "milk", "egg"}
    safe = sum(1 for r in recipes if not strict & set(r.get("allergens", [])))
    if n < 150:
        err(where, f"need >=150 recipes, have {n}")
    for c in CUISINES:
        if cz[c] < 6:
            err(where, f"cuisine {c} has {cz[c]} < 6 recipes")
    for m, k in mz.items():
        if k > 20:
            err(where, f"main ingredient {m} used {k} > 20 times")
    if kid < 60:
        err(where, f"kid_friendly {kid} < 60")
    if na < 40:
        err(where, f"allergen-free {na} < 40")
    if veg < 20:
        err(where, f"vegetarian {veg} < 20")
    if safe < 20:
        err(where, f"recipes safe for peanut+tree_nut+sesame+shellfish+fish+milk+egg: {safe} < 20")
    mins = [r.get("minutes", 0) for r in recipes]
    print(f"recipes.json: {n} recipes, {len(allnames)} distinct ingredients, "
          f"{len(multi)} ingredients with several units; kid_friendly {kid}, allergen-free {na}, "
          f"vegetarian {veg}, vegan {vegan}, safe-for-7-allergens {safe}, minutes {min(mins)}-{max(mins)}")
    print("  cuisines:", dict(sorted(cz.items())))
    print("  mains:   ", dict(sorted(mz.items())))
    return recipes


# ---------------------------------------------------------------- routines
ROUTINE_FORBIDDEN = {
    (0, 1): ["yourself", "own ", "alone", "independent", "homework", "phone", "deodorant", "alarm", "shower",
             "brush hair", "backpack", "school"],
    (2, 3): ["homework", "phone", "deodorant", "alarm", "shower", "independent", "floss", "school bag"],
    (4, 5): ["homework", "phone", "deodorant", "alarm", "skincare"],
    (6, 8): ["nappy", "diaper", "lullaby", "deodorant", "phone", "skincare", "cot"],
    (9, 12): ["nappy", "diaper", "lullaby", "bath toys", "song", "cot", "parent helping", "picture chart"],
    (13, 17): ["nappy", "diaper", "lullaby", "bath toys", "song", "cot", "potty", "parent helping",
               "picture", "cuddle", "story time"],
}


def check_routines():
    data = load("routines.json")
    where = "routines.json"
    bands = data.get("bands", [])
    got = [(b.get("min_age"), b.get("max_age")) for b in bands]
    want = list(ROUTINE_FORBIDDEN)
    if got != want:
        err(where, f"bands must be {want}, got {got}")
    steps = 0
    for b in bands:
        key = (b.get("min_age"), b.get("max_age"))
        for part in ("morning", "bedtime"):
            lst = b.get(part, [])
            if not 4 <= len(lst) <= 8:
                err(where, f"{key} {part}: {len(lst)} steps (need 4-8)")
            for s in lst:
                steps += 1
                if set(s) != {"title", "minutes"} or not s.get("title"):
                    err(where, f"{key} {part}: bad step {s}")
                if not isinstance(s.get("minutes"), int) or not 1 <= s["minutes"] <= 60:
                    err(where, f"{key} {part}: bad minutes in {s}")
                low = s.get("title", "").lower() + " "
                for bad in ROUTINE_FORBIDDEN.get(key, []):
                    if bad in low:
                        err(where, f"{key} {part}: {s['title']!r} not age-appropriate ({bad!r})")
    print(f"routines.json: {len(bands)} bands, {steps} steps")


# ---------------------------------------------------------------- chores
def check_chores():
    chores = load("chores.json")
    where = "chores.json"
    ids = set()
    for c in chores:
        w = f"{where} {c.get('id')}"
        if set(c) != {"id", "name", "min_age", "minutes", "weekdays", "effort", "keywords"}:
            err(w, f"keys {sorted(c)}")
        if not re.fullmatch(r"chore-[a-z0-9-]+", str(c.get("id"))) or c.get("id") in ids:
            err(w, "bad or duplicate id")
        ids.add(c.get("id"))
        if not isinstance(c.get("min_age"), int) or not 2 <= c["min_age"] <= 17:
            err(w, "min_age must be 2-17")
        if not isinstance(c.get("minutes"), int) or not 1 <= c["minutes"] <= 120:
            err(w, "minutes must be 1-120")
        wd = c.get("weekdays")
        if not (isinstance(wd, list) and len(wd) == 7 and all(isinstance(x, bool) for x in wd) and any(wd)):
            err(w, "weekdays must be 7 bools with at least one true")
        if c.get("effort") not in (1, 2, 3):
            err(w, "effort must be 1-3")
        kw = c.get("keywords")
        if not kw or not all(isinstance(k, str) and k == k.lower() for k in kw):
            err(w, "keywords must be non-empty lower-case strings")
    by_name = {c["name"].lower(): c for c in chores if "name" in c}
    for name, age in {"set the table": 4, "take out the recycling": 8, "mow the lawn": 14,
                      "load the dishwasher": 7, "feed the pet": 5}.items():
        if name not in by_name or by_name[name]["min_age"] != age:
            err(where, f"expected chore {name!r} with min_age {age}")
    if len(chores) < 30:
        err(where, f"need >=30 chores, have {len(chores)}")
    print(f"chores.json: {len(chores)} chores, min_age "
          f"{min(c['min_age'] for c in chores)}-{max(c['min_age'] for c in chores)}")


# ---------------------------------------------------------------- knowledge
def parse_doc(path):
    text = open(path, encoding="utf-8").read()
    m = re.match(r"---\n(.*?)\n---\n(.*)", text, re.S)
    if not m:
        return None, None
    meta = {}
    for line in m.group(1).splitlines():
        k, _, v = line.partition(":")
        meta[k.strip()] = v.split("#")[0].strip()
    return meta, m.group(2)


def check_knowledge():
    kdir = os.path.join(ROOT, "knowledge")
    docs = {}
    kinds = collections.Counter()
    words_all = []
    for fn in sorted(os.listdir(kdir)):
        w = f"knowledge/{fn}"
        if not fn.endswith(".md"):
            err(w, "unexpected file")
            continue
        meta, body = parse_doc(os.path.join(kdir, fn))
        if meta is None:
            err(w, "missing front matter")
            continue
        stem = fn[:-3]
        if set(meta) != {"id", "title", "kind", "min_age", "max_age"}:
            err(w, f"front matter keys {sorted(meta)}")
        kind = meta.get("kind")
        if kind not in KINDS or not stem.startswith(kind + "-"):
            err(w, f"kind {kind!r} invalid or not matching file name")
        if meta.get("id") != "kb-" + stem:
            err(w, f"id must be kb-{stem}")
        try:
            lo, hi = int(meta.get("min_age")), int(meta.get("max_age"))
            if not 0 <= lo <= hi <= 17:
                err(w, "ages must satisfy 0 <= min_age <= max_age <= 17")
        except (TypeError, ValueError):
            err(w, "ages must be integers")
            lo, hi = 0, 17
        if not meta.get("title"):
            err(w, "missing title")
        nwords = len(re.findall(r"[A-Za-z0-9'’-]+", body))
        words_all.append(nwords)
        if not 250 <= nwords <= 700:
            err(w, f"{nwords} words (need 250-700)")
        heads = re.findall(r"^## \S", body, re.M)
        if not 2 <= len(heads) <= 4:
            err(w, f"{len(heads)} '##' headings (need 2-4)")
        if re.search(r"^# ", body, re.M):
            err(w, "use '##' headings, not '#'")
        if kind == "development" and len(re.findall(r"\b\d+(?:[–-]\d+)?\s*(?:months?|years?)\b", body)) < 3:
            err(w, "development docs must give milestones by age")
        kinds[kind] += 1
        docs[meta.get("id")] = {"title": meta.get("title", ""), "kind": kind, "min_age": lo, "max_age": hi,
                                "text": meta.get("title", "") + "\n" + body}
    for k in KINDS:
        if kinds[k] < 8:
            err("knowledge", f"kind {k} has {kinds[k]} < 8 docs")
    if len(docs) < 60:
        err("knowledge", f"need >=60 docs, have {len(docs)}")
    biting = docs.get("kb-discipline-toddler-biting")
    if biting is None or re.search(r"aggress", biting["text"], re.I):
        err("knowledge", "toddler-biting doc must exist and never use 'aggression'")
    print(f"knowledge/: {len(docs)} docs, words {min(words_all)}-{max(words_all)} "
          f"(mean {sum(words_all) // len(words_all)}), per kind {dict(kinds)}")
    return docs


# ---------------------------------------------------------------- eval: queries
STOP = set("""a about above after again all also am an and any are as at be been before being below between both
but by can can't could did do does doing don't down during each every few for from further get gets getting
had has have having he her here hers him his how i i'm if in into is it it's its just keep keeps me more most
my no nor not now of off on once one only or other our ours out over own same she should so some such than
that the their theirs them then there these they this those through to too under until up us very was we were
what when where which while who why will with would you your yours ok okay what's""".split())


def stem(w):
    w = w.lower().strip("'’")
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("es") and len(w) > 4 and w[-3] in "sxz":
        return w[:-2]
    if w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        return w[:-1]
    return w


def content_words(text):
    toks = re.findall(r"[a-z0-9']+", text.lower().replace("’", "'"))
    out = set()
    for t in toks:
        t = t[:-2] if t.endswith("'s") else t
        if t and t not in STOP:
            out.add(stem(t))
    return out


def check_queries(docs, recipes):
    qs = load("eval/queries.json")
    where = "eval/queries.json"
    items = dict(docs)
    for r in recipes:
        text = " ".join([r["title"], r["description"], " ".join(r["steps"]),
                         " ".join(i["item"] for i in r["ingredients"]), " ".join(r["tags"])])
        items[r["id"]] = {"title": r["title"], "text": text, "recipe": r}
    types = collections.Counter()
    n_kb = n_rcp = 0
    for q in qs:
        w = f"{where} {q.get('query')!r}"
        t = q.get("type")
        types[t] += 1
        if t not in ("paraphrase", "exact", "filtered"):
            err(w, f"bad type {t}")
        rel = q.get("relevant", [])
        if not rel:
            err(w, "no relevant ids")
        for rid in rel:
            if rid not in items:
                err(w, f"unknown id {rid}")
        rel = [x for x in rel if x in items]
        n_kb += any(x.startswith("kb-") for x in rel)
        n_rcp += any(x.startswith("rcp-") for x in rel)
        if t == "filtered":
            f = q.get("filters")
            if not isinstance(f, dict) or not f or set(f) - {"kind", "age", "exclude_allergens"}:
                err(w, f"bad filters {f}")
                continue
            for rid in rel:
                it = items[rid]
                if "kind" in f and it.get("kind") != f["kind"]:
                    err(w, f"{rid} does not match kind filter")
                if "age" in f and "min_age" in it and not it["min_age"] <= f["age"] <= it["max_age"]:
                    err(w, f"{rid} does not cover age {f['age']}")
                if "age" in f and "recipe" in it:
                    err(w, "age filter does not apply to recipes")
                if "exclude_allergens" in f:
                    if any(a not in CANON for a in f["exclude_allergens"]):
                        err(w, "non-canonical allergen in filter")
                    if "recipe" not in it:
                        err(w, f"{rid}: exclude_allergens only applies to recipes")
                    elif set(f["exclude_allergens"]) & set(it["recipe"]["allergens"]):
                        err(w, f"{rid} contains an excluded allergen")
        elif "filters" in q:
            err(w, "filters only allowed on filtered queries")
        qw = content_words(q.get("query", ""))
        if t == "paraphrase":
            for rid in rel:
                shared = qw & content_words(items[rid]["title"])
                if shared:
                    err(w, f"paraphrase shares {sorted(shared)} with title of {rid}")
        if t == "exact":
            for rid in rel:
                missing = qw - content_words(items[rid]["text"])
                if missing:
                    err(w, f"exact query words {sorted(missing)} not found in {rid}")
    if len(qs) < 60:
        err(where, f"need >=60 queries, have {len(qs)}")
    for t, need in (("paraphrase", 20), ("exact", 20), ("filtered", 15)):
        if types[t] < need:
            err(where, f"need >={need} {t} queries, have {types[t]}")
    if n_rcp < 10 or n_kb < 10:
        err(where, "mix recipes and knowledge docs (>=10 queries each)")
    print(f"eval/queries.json: {len(qs)} queries {dict(types)}; {n_kb} target docs, {n_rcp} target recipes")


# ---------------------------------------------------------------- eval: extraction
FACT_KINDS = {"allergy", "intolerance", "diet", "injury", "goal", "preference", "dislike", "schedule"}
DIETS = {"vegetarian", "vegan", "pescatarian", "halal", "kosher", "gluten-free", "dairy-free", "low-carb",
         "low-sodium"}


def check_extraction():
    ex = load("eval/extraction.json")
    where = "eval/extraction.json"
    nofacts = neg = first = multi = 0
    kinds = collections.Counter()
    for i, e in enumerate(ex):
        w = f"{where} #{i} {e.get('text', '')[:40]!r}"
        if set(e) != {"text", "speaker", "members", "facts"}:
            err(w, f"keys {sorted(e)}")
            continue
        if e["speaker"] not in e["members"]:
            err(w, "speaker must be a member")
        facts = e["facts"]
        if not facts:
            nofacts += 1
        if len(facts) > 1:
            multi += 1
        if any(f.get("polarity") == "remove" for f in facts):
            neg += 1
        if any(f.get("subject") == e["speaker"] for f in facts):
            first += 1
        seen = set()
        for f in facts:
            if set(f) != {"kind", "subject", "value", "polarity"}:
                err(w, f"fact keys {sorted(f)}")
                continue
            kinds[f["kind"]] += 1
            if f["kind"] not in FACT_KINDS:
                err(w, f"bad kind {f['kind']}")
            if f["subject"] not in e["members"]:
                err(w, f"subject {f['subject']} not a member")
            if f["polarity"] not in ("add", "remove"):
                err(w, "polarity must be add/remove")
            v = f["value"]
            if not isinstance(v, str) or not v or v != v.lower():
                err(w, f"value must be a non-empty lower-case string: {v!r}")
            if f["kind"] in ("allergy", "intolerance") and v not in CANON:
                err(w, f"{f['kind']} value must be canonical: {v}")
            if f["kind"] == "diet" and v not in DIETS:
                err(w, f"diet value not in vocabulary: {v}")
            key = (f["kind"], f["subject"], v, f["polarity"])
            if key in seen:
                err(w, "duplicate fact")
            seen.add(key)
        for (k, s, v, p) in seen:
            if v == "wheat" and (k, s, "gluten", p) not in seen:
                err(w, "wheat fact without matching gluten fact")
    if len(ex) < 100:
        err(where, f"need >=100 messages, have {len(ex)}")
    if nofacts < 25:
        err(where, f"need >=25 messages without facts, have {nofacts}")
    if neg < 15:
        err(where, f"need >=15 negation messages, have {neg}")
    if first < 5 or multi < 5:
        err(where, "need first-person and multi-fact messages")
    print(f"eval/extraction.json: {len(ex)} messages; no-fact {nofacts}, with removals {neg}, "
          f"first-person {first}, multi-fact {multi}; facts by kind {dict(sorted(kinds.items()))}")


# ---------------------------------------------------------------- first foods
FOOD_CATEGORIES = {"fruit", "vegetable", "grain", "meat", "dairy", "legume", "nuts_seeds", "fish", "egg",
                   "herb_spice", "other"}
# The "eat the rainbow" colours the tracking API accepts (TrackingLogInput.foodColours).
FOOD_COLOURS = {"red", "orange", "yellow", "green", "blue", "purple", "white", "brown"}
CHOKING_RISKS = {"low", "medium", "high"}
FOOD_KEYS = {"id", "name", "category", "colour", "allergens", "from_months", "choking_risk", "serving_tip"}
# Nut and seed butters the vocabulary's milk exceptions do not list yet ("butter" is a milk term).
FOOD_TERM_EXCEPTIONS = {"milk": ["hazelnut butter", "seed butter"]}


def check_first_foods(syn):
    data = load("first_foods.json")
    where = "first_foods.json"
    implies = syn.get("implies", {})
    if set(data) != {"source", "foods"} or not str(data.get("source", "")).strip():
        err(where, "top level must be {source, foods} with a non-empty source")
    foods = data.get("foods", [])
    ids, names = set(), {}
    for idx, f in enumerate(foods):
        fid = f.get("id", f"#{idx}")
        w = f"{where} {fid}"
        if set(f) != FOOD_KEYS:
            err(w, f"keys {sorted(f)}")
        if not re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", str(fid)):
            err(w, "id must be lower-case and hyphenated")
        if fid in ids:
            err(w, "duplicate id")
        ids.add(fid)
        name = f.get("name", "")
        key = " ".join(str(name).lower().split())
        if not key or name != name.strip():
            err(w, "name must be non-empty without surrounding spaces")
        if key in names:
            err(w, f"name repeats {names[key]} (case-insensitively)")
        names.setdefault(key, fid)
        if f.get("category") not in FOOD_CATEGORIES:
            err(w, f"bad category {f.get('category')}")
        if f.get("colour") not in FOOD_COLOURS:
            err(w, f"bad colour {f.get('colour')}")
        al = f.get("allergens", [])
        if not isinstance(al, list) or any(a not in CANON for a in al) or len(al) != len(set(al)):
            err(w, f"allergens must be distinct canonical names: {al}")
        for a in al if isinstance(al, list) else []:
            for implied in implies.get(a, []):
                if implied not in al:
                    err(w, f"{a} without {implied}")
        m = f.get("from_months")
        if not isinstance(m, int) or isinstance(m, bool) or not 6 <= m <= 60:
            err(w, f"from_months must be a whole number 6-60: {m}")
        if f.get("choking_risk") not in CHOKING_RISKS:
            err(w, f"bad choking_risk {f.get('choking_risk')}")
        tip = f.get("serving_tip", "")
        if not isinstance(tip, str) or len(re.findall(r"[.!?](\s|$)", tip)) != 1 or not tip.endswith("."):
            err(w, "serving_tip must be one sentence")
        # Same keyword rule as recipe ingredients (one direction: the name suggests it, so it must be
        # listed); exceptions also match in the singular ("corn tortilla").
        low = str(name).lower()
        for a, tl in syn["ingredient_terms"].items():
            exceptions = syn.get("term_exceptions", {}).get(a, []) + FOOD_TERM_EXCEPTIONS.get(a, [])
            if any(has_term(low, e) or has_term(low, stem(e)) for e in exceptions):
                continue
            if any(has_term(low, t) for t in tl) and a not in al:
                err(w, f"name suggests {a} but it is not listed")
    got = [f.get("id") for f in foods]
    if got != sorted(got, key=str):
        err(where, "foods must be sorted by id")
    by_id = {f.get("id"): f for f in foods}
    # Safety rules a reviewer would otherwise have to remember.
    for fid, months in {"honey": 12, "whole-milk": 12, "popcorn": 48}.items():
        if fid not in by_id or by_id[fid].get("from_months") != months:
            err(where, f"expected {fid} with from_months {months}")
    if "grapes" not in by_id or by_id["grapes"].get("choking_risk") != "high" \
            or "quarter" not in by_id["grapes"].get("serving_tip", "").lower():
        err(where, "grapes must be high choking risk with a tip to quarter them")
    for f in foods:
        words = set(re.findall(r"[a-z]+", f.get("name", "").lower()))
        if words & {"nut", "nuts", "peanut", "peanuts", "almond", "almonds", "cashew", "cashews", "walnut",
                    "walnuts", "hazelnut", "hazelnuts"} and not words & {"butter", "powder", "puffs", "ground"}:
            err(f"{where} {f.get('id')}", "whole nuts are not a baby food: list a butter, powder or ground form")
    for fid, want in {"peanut-butter": ["peanut"], "hummus": ["sesame"], "scrambled-egg": ["egg"],
                      "greek-yogurt": ["milk"], "salmon": ["fish"], "prawns": ["shellfish"], "tofu": ["soy"],
                      "almond-butter": ["tree_nut"], "bread": ["wheat", "gluten"]}.items():
        if fid not in by_id or sorted(by_id[fid].get("allergens", [])) != sorted(want):
            err(where, f"expected {fid} with allergens {want}")
    if len(foods) < 120:
        err(where, f"need >=120 foods, have {len(foods)}")
    cats = collections.Counter(f.get("category") for f in foods)
    cols = collections.Counter(f.get("colour") for f in foods)
    for c in FOOD_COLOURS:
        if cols[c] == 0:
            err(where, f"no food is {c}")
    print(f"first_foods.json: {len(foods)} foods, {sum(1 for f in foods if f.get('allergens'))} with allergens, "
          f"{sum(1 for f in foods if f.get('choking_risk') == 'high')} high choking risk")
    print("  categories:", dict(sorted(cats.items())))
    print("  colours:   ", dict(sorted(cols.items())))


# ---------------------------------------------------------------- activities (family micro-rituals)
ACT_KEYS = ["id", "title", "description", "time_minutes", "energy", "contexts", "category", "min_age",
            "max_age", "repeatability"]
ACT_TIMES = [2, 5, 15, 30]
ACT_ENERGY = ["low", "medium", "high"]
ACT_CONTEXTS = ["indoor", "outdoor", "car", "bedtime", "meal"]  # canonical order
ACT_CATEGORIES = ["connection", "creativity", "movement", "nature", "learning", "calm", "kindness", "play"]
ACT_REPEAT = {"daily", "weekly", "occasional"}
# Minimum number of activities per value, so every filter the app offers has something to show.
ACT_MIN_TIME, ACT_MIN_ENERGY, ACT_MIN_CONTEXT, ACT_MIN_CATEGORY = 20, 30, 15, 12
ACT_MIN_BABY, ACT_MIN_TWEEN = 15, 20  # min_age <= 1, min_age >= 8
ACT_TITLE_JACCARD = 0.6


def act_slug(title):
    return re.sub(r"[^a-z0-9]+", "-", re.sub(r"['’]", "", title.lower())).strip("-")


def title_words(title):
    return {t for t in re.findall(r"[a-z0-9'’]+", title.lower()) if len(t) > 3}


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_activities():
    data = load("activities.json")
    where = "activities.json"
    if not isinstance(data, dict) or list(data) != ["version", "activities"]:
        err(where, "top level must be {version, activities} in that order")
        return
    if data.get("version") != 1:
        err(where, f"version must be 1, got {data.get('version')!r}")
    acts = data.get("activities")
    if not isinstance(acts, list):
        err(where, "activities must be an array")
        return
    ids, titles = set(), {}
    for idx, a in enumerate(acts):
        aid = a.get("id", f"#{idx}") if isinstance(a, dict) else f"#{idx}"
        w = f"{where} {aid}"
        if not isinstance(a, dict) or list(a) != ACT_KEYS:
            err(w, f"keys must be {ACT_KEYS} in that order")
            if not isinstance(a, dict):
                continue
        title = a.get("title")
        if not isinstance(title, str) or not 3 <= len(title) <= 60 or title != title.strip():
            err(w, f"title must be 3-60 chars without surrounding spaces: {title!r}")
            title = str(title)
        if not re.fullmatch(r"act-[a-z0-9]+(-[a-z0-9]+)*", str(aid)):
            err(w, "id must be act- plus a lower-case kebab slug")
        elif aid != "act-" + act_slug(title):
            err(w, f"id must be act-{act_slug(title)} (slug of the title)")
        if aid in ids:
            err(w, "duplicate id")
        ids.add(aid)
        key = title.lower()
        if key in titles:
            err(w, f"title repeats {titles[key]} (case-insensitively)")
        titles.setdefault(key, aid)
        desc = a.get("description")
        if not isinstance(desc, str) or not 60 <= len(desc) <= 320:
            err(w, f"description must be 60-320 chars (has {len(desc) if isinstance(desc, str) else desc!r})")
        else:
            nsent = len(re.findall(r"[.!?](\s|$)", desc))
            if not 1 <= nsent <= 3:
                err(w, f"description must be 1-3 sentences (found {nsent})")
            if not desc.endswith("."):
                err(w, "description must end with a full stop")
        if a.get("time_minutes") not in ACT_TIMES or not is_int(a.get("time_minutes")):
            err(w, f"time_minutes must be one of {ACT_TIMES}: {a.get('time_minutes')!r}")
        if a.get("energy") not in ACT_ENERGY:
            err(w, f"bad energy {a.get('energy')!r}")
        ctx = a.get("contexts")
        if not isinstance(ctx, list) or not ctx or any(c not in ACT_CONTEXTS for c in ctx) \
                or len(ctx) != len(set(ctx)):
            err(w, f"contexts must be a non-empty list of distinct values from {ACT_CONTEXTS}: {ctx!r}")
            ctx = []
        elif ctx != [c for c in ACT_CONTEXTS if c in ctx]:
            err(w, f"contexts must follow the canonical order {ACT_CONTEXTS}: {ctx}")
        if "bedtime" in ctx and a.get("energy") != "low":
            err(w, "bedtime activities must be low energy")
        if a.get("category") not in ACT_CATEGORIES:
            err(w, f"bad category {a.get('category')!r}")
        lo, hi = a.get("min_age"), a.get("max_age")
        if not is_int(lo) or not 0 <= lo <= 17:
            err(w, f"min_age must be a whole number 0-17: {lo!r}")
        elif not is_int(hi) or not lo <= hi <= 99:
            err(w, f"max_age must be a whole number from min_age to 99: {hi!r}")
        if a.get("repeatability") not in ACT_REPEAT:
            err(w, f"bad repeatability {a.get('repeatability')!r}")
    got = [a.get("id") for a in acts if isinstance(a, dict)]
    if got != sorted(got, key=str):
        err(where, "activities must be sorted by id")
    # near-duplicate titles: Jaccard similarity of their sets of words longer than three letters
    tw = [(a.get("id"), title_words(str(a.get("title", "")))) for a in acts if isinstance(a, dict)]
    near = 0
    for i in range(len(tw)):
        for j in range(i + 1, len(tw)):
            s1, s2 = tw[i][1], tw[j][1]
            if s1 and s2 and len(s1 & s2) / len(s1 | s2) >= ACT_TITLE_JACCARD:
                near += 1
                err(where, f"near-duplicate titles {tw[i][0]} and {tw[j][0]} (shared {sorted(s1 & s2)})")
    # coverage
    ok = [a for a in acts if isinstance(a, dict)]
    times = collections.Counter(a.get("time_minutes") for a in ok)
    energy = collections.Counter(a.get("energy") for a in ok)
    ctxs = collections.Counter(c for a in ok if isinstance(a.get("contexts"), list) for c in a["contexts"])
    cats = collections.Counter(a.get("category") for a in ok)
    for t in ACT_TIMES:
        if times[t] < ACT_MIN_TIME:
            err(where, f"time_minutes {t} has {times[t]} < {ACT_MIN_TIME} activities")
    for e in ACT_ENERGY:
        if energy[e] < ACT_MIN_ENERGY:
            err(where, f"energy {e} has {energy[e]} < {ACT_MIN_ENERGY} activities")
    for c in ACT_CONTEXTS:
        if ctxs[c] < ACT_MIN_CONTEXT:
            err(where, f"context {c} has {ctxs[c]} < {ACT_MIN_CONTEXT} activities")
    for c in ACT_CATEGORIES:
        if cats[c] < ACT_MIN_CATEGORY:
            err(where, f"category {c} has {cats[c]} < {ACT_MIN_CATEGORY} activities")
    baby = sum(1 for a in ok if is_int(a.get("min_age")) and a["min_age"] <= 1)
    tween = sum(1 for a in ok if is_int(a.get("min_age")) and a["min_age"] >= 8)
    if baby < ACT_MIN_BABY:
        err(where, f"only {baby} activities for ages 0-2 (min_age <= 1), need {ACT_MIN_BABY}")
    if tween < ACT_MIN_TWEEN:
        err(where, f"only {tween} activities for tweens/teens (min_age >= 8), need {ACT_MIN_TWEEN}")
    print(f"activities.json: {len(acts)} activities, {baby} for ages 0-2, {tween} for ages 8+, "
          f"{near} near-duplicate title pairs")
    print("  time:      ", {t: times[t] for t in ACT_TIMES})
    print("  energy:    ", {e: energy[e] for e in ACT_ENERGY})
    print("  contexts:  ", {c: ctxs[c] for c in ACT_CONTEXTS})
    print("  categories:", {c: cats[c] for c in ACT_CATEGORIES})


# ---------------------------------------------------------------- eval: moderation
MOD_KEYS = ["id", "title", "description", "time_minutes", "energy", "contexts", "category", "label",
            "decision", "reason", "duplicate_of"]
# label -> rejection reason (None means approved)
MOD_REASON = {"safe": None, "unsafe": "unsafe", "medical": "medical", "pii": "pii", "spam": "spam",
              "duplicate": "duplicate", "paraphrase": "duplicate"}
MOD_MIN = {"safe": 36, "unsafe": 12, "medical": 10, "pii": 10, "spam": 10, "duplicate": 8, "paraphrase": 10}
MOD_MIN_PARAPHRASE_OF_SUBMISSION = 2


def check_moderation_set():
    data = load("eval/moderation.json")
    where = "eval/moderation.json"
    if not isinstance(data, dict) or list(data) != ["version", "submissions"]:
        err(where, "top level must be {version, submissions} in that order")
        return
    if data.get("version") != 1:
        err(where, f"version must be 1, got {data.get('version')!r}")
    subs = data.get("submissions")
    if not isinstance(subs, list):
        err(where, "submissions must be an array")
        return
    lib = load("activities.json").get("activities", [])
    lib_ids = {a.get("id") for a in lib if isinstance(a, dict)}
    lib_titles = [(a.get("id"), title_words(str(a.get("title", "")))) for a in lib if isinstance(a, dict)]
    labels = collections.Counter()
    seen = {}  # id -> label of the earlier submissions
    to_lib = to_mod = para_to_mod = 0
    for idx, s in enumerate(subs):
        want_id = f"mod-{idx + 1:03d}"
        sid = s.get("id") if isinstance(s, dict) else None
        w = f"{where} {sid or '#' + str(idx)}"
        if not isinstance(s, dict) or list(s) != MOD_KEYS:
            err(w, f"keys must be {MOD_KEYS} in that order")
            if not isinstance(s, dict):
                continue
        if sid != want_id:
            err(w, f"ids must be sequential: expected {want_id}")
        if sid in seen:
            err(w, "duplicate id")
        title, desc = s.get("title"), s.get("description")
        if not isinstance(title, str) or not 3 <= len(title) <= 60 or title != title.strip():
            err(w, f"title must be 3-60 chars without surrounding spaces: {title!r}")
        if not isinstance(desc, str) or not 30 <= len(desc) <= 320:
            err(w, f"description must be 30-320 chars (has {len(desc) if isinstance(desc, str) else desc!r})")
        if s.get("time_minutes") not in ACT_TIMES or not is_int(s.get("time_minutes")):
            err(w, f"time_minutes must be one of {ACT_TIMES}: {s.get('time_minutes')!r}")
        if s.get("energy") not in ACT_ENERGY:
            err(w, f"bad energy {s.get('energy')!r}")
        ctx = s.get("contexts")
        if not isinstance(ctx, list) or not ctx or any(c not in ACT_CONTEXTS for c in ctx) \
                or len(ctx) != len(set(ctx)):
            err(w, f"contexts must be a non-empty list of distinct values from {ACT_CONTEXTS}: {ctx!r}")
        if s.get("category") not in ACT_CATEGORIES:
            err(w, f"bad category {s.get('category')!r}")
        label = s.get("label")
        labels[label] += 1
        if label not in MOD_REASON:
            err(w, f"bad label {label!r}")
        else:
            want_dec = "approved" if label == "safe" else "rejected"
            if s.get("decision") != want_dec:
                err(w, f"label {label} needs decision {want_dec!r}, got {s.get('decision')!r}")
            if s.get("reason") != MOD_REASON[label]:
                err(w, f"label {label} needs reason {MOD_REASON[label]!r}, got {s.get('reason')!r}")
        dup = s.get("duplicate_of")
        if label in ("duplicate", "paraphrase"):
            if isinstance(dup, str) and dup.startswith("act-"):
                to_lib += 1
                if dup not in lib_ids:
                    err(w, f"duplicate_of {dup} is not in activities.json")
            elif isinstance(dup, str) and dup.startswith("mod-"):
                to_mod += 1
                para_to_mod += label == "paraphrase"
                if dup not in seen:
                    err(w, f"duplicate_of {dup} must be an earlier submission")
                elif seen[dup] != "safe":
                    err(w, f"duplicate_of {dup} must point to a submission labelled safe, not {seen[dup]}")
            else:
                err(w, f"{label} needs duplicate_of with an act- or earlier mod- id, got {dup!r}")
        elif dup is not None:
            err(w, f"duplicate_of must be null for label {label}")
        if label == "safe":
            # a safe submission is a new idea: its title must not be a near-copy of a library title
            mine = title_words(str(title))
            for aid, theirs in lib_titles:
                if mine and theirs and len(mine & theirs) / len(mine | theirs) >= ACT_TITLE_JACCARD:
                    err(w, f"safe submission title is a near-copy of {aid} (shared {sorted(mine & theirs)})")
        if isinstance(sid, str):
            seen.setdefault(sid, label)
    for label, need in MOD_MIN.items():
        if labels[label] < need:
            err(where, f"need >={need} {label} submissions, have {labels[label]}")
    if para_to_mod < MOD_MIN_PARAPHRASE_OF_SUBMISSION:
        err(where, f"need >={MOD_MIN_PARAPHRASE_OF_SUBMISSION} paraphrases of earlier submissions, "
                   f"have {para_to_mod}")
    print(f"eval/moderation.json: {len(subs)} submissions "
          f"{ {k: labels[k] for k in MOD_MIN} }; duplicate_of {to_lib} library, {to_mod} earlier submissions "
          f"({para_to_mod} paraphrases)")


def main():
    syn = check_synonyms()
    recipes = check_recipes(syn)
    check_routines()
    check_chores()
    docs = check_knowledge()
    check_queries(docs, recipes)
    check_extraction()
    check_first_foods(syn)
    check_activities()
    check_moderation_set()
    if ERRORS:
        print(f"\n{len(ERRORS)} problem(s):")
        for e in ERRORS:
            print("  -", e)
        sys.exit(1)
    print("\nOK: all content checks passed")


if __name__ == "__main__":
    main()
