import { readFileSync } from "node:fs";
import { required } from "../../src/required.ts";
import { at } from "../support/elements.ts";
import { sharedPath } from "./shared.ts";

/** The user's interface document: its field tables are what the suite checks every response against. */
const interfaceDocument = "spec/000_6ffe1c076a1edbb6.txt";

/** One field of an object as the document lists it: its name and its type text, verbatim. */
export type DocumentField = { name: string; type: string };

/** What the document says: objects by lowercase name, each endpoint's body object and cursor keys. */
export type InterfaceDocument = {
  objects: Map<string, DocumentField[]>;
  /** Endpoint number → its path as the document writes it (`/api/v2/addresses/{address_hash}/tokens`). */
  paths: Map<number, string>;
  /** Endpoint number → the object its items (or its body, for 7 and 10) are. */
  bodies: Map<number, { object: string; list: boolean }>;
  /** Endpoint number → the keys of `next_page_params` with their types. */
  cursors: Map<number, DocumentField[]>;
};

/** A found mismatch: where in the body, and what is wrong. */
export type Violation = { path: string; problem: string };

/** Capture group `index` of `match`, one the pattern always fills. */
function captured(match: RegExpMatchArray, index: number): string {
  return required(match[index], `group ${index} of ${JSON.stringify(match[0])}`);
}

/** Splits `text` at `separator` where it is not inside parentheses or backticks. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let current = "";
  for (const char of text) {
    if (char === "`") quoted = !quoted;
    if (!quoted && char === "(") depth++;
    if (!quoted && char === ")") depth--;
    if (char === separator && depth === 0 && !quoted) {
      parts.push(current.trim());
      current = "";
    } else current += char;
  }
  if (current.trim() !== "") parts.push(current.trim());
  return parts;
}

/** `name (type)` items of an inline field list such as `slug (string), ordinal (integer)`. */
function inlineFields(text: string): DocumentField[] {
  // A definition may go on with sentences after its fields ("...). Variable types seen: ...").
  return splitTopLevel(text.replace(/\)\. .*$/s, ")").replace(/\.$/, ""), ",").map((part) => {
    const match = /^`?([\w.?]+)`?\s*\((.*)\)$/s.exec(part);
    if (!match) throw new Error(`unreadable field in the interface document: ${part}`);
    return { name: captured(match, 1), type: captured(match, 2) };
  });
}

/** Lowercase object name without its parenthesised remark: `Address object (used ...)` → `address object`. */
function objectName(heading: string): string {
  return heading
    .replace(/\(.*\)/, "")
    .trim()
    .toLowerCase();
}

/**
 * Reads the document's field tables (`### Name` then `| Field | Type |` rows), its one-line object
 * definitions (`Action: data (...), protocol (string).`), the endpoints table and the cursor keys table.
 */
export function readInterfaceDocument(
  text = readFileSync(sharedPath(interfaceDocument), "utf8"),
): InterfaceDocument {
  const objects = new Map<string, DocumentField[]>();
  const paths = new Map<number, string>();
  const bodies = new Map<number, { object: string; list: boolean }>();
  const cursors = new Map<number, DocumentField[]>();
  let heading = "";
  let table: "fields" | "endpoints" | "cursors" | null = null;
  for (const line of text.split("\n")) {
    const section = /^#{2,3} (.*)$/.exec(line);
    if (section) {
      heading = objectName(captured(section, 1));
      table = null;
      continue;
    }
    const definition = /^-? ?([A-Z][\w ]*?): (\w+ \(.*)$/.exec(line);
    if (definition && !line.startsWith("|")) {
      objects.set(objectName(captured(definition, 1)), inlineFields(captured(definition, 2)));
      continue;
    }
    if (!line.startsWith("|")) {
      table = null;
      continue;
    }
    const cells = line
      .slice(1, -1)
      .split("|")
      .map((cell) => cell.trim());
    const cell = (index: number) => at(cells, index, `table row ${line}`);
    if (/^-+$/.test(cell(0))) continue;
    if (cells[0] === "Field" && cells[1] === "Type") table = "fields";
    else if (cells[0] === "#" && cells[1] === "Path") table = "endpoints";
    else if (cells[0] === "#" && cells[1] === "Keys of next_page_params") table = "cursors";
    else if (table === "fields") objects.set(heading, [...(objects.get(heading) ?? []), fieldOf(cells)]);
    else if (table === "endpoints") {
      paths.set(Number(cells[0]), cell(1).replaceAll("`", ""));
      const body = cell(4)
        .replace(/\(.*\)/, "")
        .trim();
      const list = body.startsWith("items: ");
      bodies.set(Number(cells[0]), { object: objectName(body.replace(/^items: /, "")), list });
    } else if (table === "cursors") cursors.set(Number(cells[0]), inlineFields(cell(1)));
  }
  return { objects, paths, bodies, cursors };
}

function fieldOf(cells: string[]): DocumentField {
  return { name: at(cells, 0, "field row"), type: at(cells, 1, "field row") };
}

/** Checks one value; pushes what is wrong. `at` is the JSON path shown in messages. */
export type Checker = (value: unknown, at: string, found: Violation[]) => void;

const timestampPattern = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/**
 * Where the document's words need reading against the contract, the reading is stated here and nowhere
 * else. Keys are `object.field`.
 */
const readings: Record<string, string> = {
  // The document lists the tag fields under `metadata`; the contract (Shared objects) and Blockscout carry
  // them as `metadata.tags[]`, which is what the rule checks.
  "address object.metadata": "object: tags (array of metadata tag)",
  // The document types `revert_reason` a string; Blockscout writes an object (the decoded error, or
  // `{"raw": hex}`), which is what its frontend reads (`'raw' in revert_reason` throws on a string) and
  // what Sextant's OpenAPI document says. Issue 10 settles on Blockscout's object.
  "transaction.revert_reason": "object",
};

/**
 * Turns the document's type texts into checkers. A value may be null wherever the document does not say
 * otherwise ("Which fields may be absent or null: not shown"); every non-null value must have the type,
 * and every listed field must be present.
 */
export class DocumentChecker {
  readonly document: InterfaceDocument;

  constructor(document: InterfaceDocument) {
    this.document = document;
    // The contract's reading of `metadata` (see `readings`): a tag has the fields the document lists.
    const metadata = document.objects.get("address object")?.find((field) => field.name === "metadata");
    if (metadata) document.objects.set("metadata tag", inlineFields(metadata.type.replace(/^object: /, "")));
  }

  /** The fields of an object the document defines; throws for a name it does not define. */
  fields(object: string): DocumentField[] {
    const fields = this.document.objects.get(object);
    if (!fields) throw new Error(`the interface document defines no object "${object}"`);
    return fields;
  }

  /**
   * Checks `value` as the document's `object`. `where` names the place for the fields the document lists
   * only somewhere ("present in NFT collection listing"); elsewhere those are checked when present.
   * `holdersCountAsInteger` is the document's one retyping: the `token` directly on an item of the
   * address tokens list carries `holders_count` as an integer.
   */
  checkObject(
    object: string,
    value: unknown,
    { where = "", holdersCountAsInteger = false }: { where?: string; holdersCountAsInteger?: boolean } = {},
  ): Violation[] {
    const found: Violation[] = [];
    const fields = this.fields(object);
    const integerCount = [{ name: "holders_count", type: "integer" }];
    const replaced: Record<string, Checker> = {};
    if (holdersCountAsInteger) {
      const tokenFields = this.fields("token object").filter((field) => field.name !== "holders_count");
      replaced.token = this.fieldsChecker([...tokenFields, ...integerCount], "token object", where);
    }
    this.fieldsChecker(fields, object, where, replaced)(value, "", found);
    return found;
  }

  /** Checks a list's `next_page_params` against the cursor keys the document gives endpoint `endpoint`. */
  checkCursor(endpoint: number, cursor: unknown): Violation[] {
    const keys = this.document.cursors.get(endpoint);
    if (!keys) throw new Error(`the interface document gives no cursor keys for endpoint ${endpoint}`);
    const found: Violation[] = [];
    this.fieldsChecker(keys, undefined, "")(cursor, "next_page_params", found);
    return found;
  }

  /**
   * The checker of a list of fields. A field whose type says where it is present (`(present in NFT
   * collection listing)`) is required only `where` that place is; `replaced` gives fields another checker.
   */
  private fieldsChecker(
    fields: DocumentField[],
    object: string | undefined,
    where: string,
    replaced: Record<string, Checker> = {},
  ): Checker {
    const checkers = fields.map((field) => {
      const type = (object && readings[`${object}.${field.name}`]) ?? field.type;
      const place = /\((?:present in|appears only inside) ([^)]*)\)/.exec(type)?.[1];
      const optional = field.name.endsWith("?") || (place !== undefined && place !== where);
      const check = replaced[field.name] ?? this.typeChecker(type, where);
      return { path: field.name.replace(/\?$/, "").split("."), optional, check };
    });
    return (value, at, found) => {
      if (value === null) return;
      if (typeof value !== "object" || Array.isArray(value)) {
        found.push({ path: at, problem: `expected an object, got ${JSON.stringify(value)}` });
        return;
      }
      for (const { path, optional, check } of checkers) {
        let current: unknown = value;
        let where = at;
        for (const [i, key] of path.entries()) {
          where = where === "" ? key : `${where}.${key}`;
          if (current === null || typeof current !== "object" || !(key in current)) {
            if (!optional) found.push({ path: where, problem: "missing" });
            current = undefined;
            break;
          }
          current = (current as Record<string, unknown>)[key];
          if (current === null && i < path.length - 1) break;
        }
        if (current !== undefined) check(current, where, found);
      }
    };
  }

  /** The checker of one type text of the document. */
  private typeChecker(type: string, where: string): Checker {
    const text = type.trim();
    const primitive = (test: (value: unknown) => boolean, expected: string): Checker => {
      return (value, at, found) => {
        if (value !== null && !test(value))
          found.push({ path: at, problem: `expected ${expected}, got ${JSON.stringify(value)}` });
      };
    };
    const array = (element: Checker): Checker => {
      return (value, at, found) => {
        if (value === null) return;
        if (!Array.isArray(value)) {
          found.push({ path: at, problem: `expected an array, got ${JSON.stringify(value)}` });
          return;
        }
        value.forEach((entry, i) => {
          element(entry, `${at}[${i}]`, found);
        });
      };
    };
    const enumerated = (allowed: string[]): Checker =>
      primitive(
        (value) => typeof value === "string" && allowed.includes(value),
        `one of ${allowed.join(", ")}`,
      );
    const values = (list: string) => [...list.matchAll(/`([^`]+)`/g)].map((match) => captured(match, 1));

    let match: RegExpExecArray | null;
    match = /^array of two numbers$/.exec(text);
    if (match) {
      const numbers = array(primitive((value) => typeof value === "number", "a number"));
      return (value, at, found) => {
        numbers(value, at, found);
        if (Array.isArray(value) && value.length !== 2)
          found.push({ path: at, problem: `expected two entries, got ${value.length}` });
      };
    }
    match = /^array of string; allowed values: (.*)$/.exec(text);
    if (match) return array(enumerated(values(captured(match, 1))));
    match = /^array of objects: (.*)$/s.exec(text);
    if (match) return array(this.looseFieldsChecker(captured(match, 1), where));
    match = /^array of (.*)$/.exec(text);
    if (match) {
      if (match[1] === "string") return array(this.typeChecker("string", where));
      return array(this.referenceChecker(captured(match, 1), where));
    }
    match = /^object: (.*)$/s.exec(text);
    if (match) return this.fieldsChecker(inlineFields(captured(match, 1)), undefined, where);
    match = /^object of four booleans: (.*)$/.exec(text);
    if (match)
      return this.fieldsChecker(
        captured(match, 1)
          .split(", ")
          .map((name) => ({ name, type: "boolean" })),
        undefined,
        where,
      );
    match = /^same shape as (\w+)$/.exec(text);
    if (match) return this.sameShapeAs(captured(match, 1), where);
    if (/^(free-form )?object\b/.test(text))
      return primitive((value) => typeof value === "object" && !Array.isArray(value), "an object");
    if (text === "integer") return primitive(Number.isInteger, "an integer");
    if (/^number\b/.test(text)) return primitive((value) => typeof value === "number", "a number");
    if (text === "boolean" || /^`\w+\?` boolean$/.test(text))
      return primitive((value) => typeof value === "boolean", "a boolean");
    if (text === "timestamp string")
      return primitive((value) => typeof value === "string" && timestampPattern.test(value), "a timestamp");
    if (text === "string, hex address")
      return primitive(
        (value) => typeof value === "string" && /^0x[0-9a-fA-F]{40}$/.test(value),
        "an address",
      );
    if (text === "string, hex")
      return primitive((value) => typeof value === "string" && /^0x[0-9a-fA-F]*$/.test(value), "hex");
    match = /^string, (`\w+` or `\w+`)$/.exec(text);
    if (match) return enumerated(values(captured(match, 1)));
    if (/^(`\w+` or `\w+`)$/.test(text)) return enumerated(values(text));
    // "string; values seen: ..." lists examples, not every value: only the type is checked.
    if (/^string\b/.test(text) || text === "string or null")
      return primitive((value) => typeof value === "string", "a string");
    if (/^(address object|token object|token instance)( or null)?\b/.test(text))
      return this.referenceChecker(text.replace(/ or null\b.*| \(.*\)$/, ""), where);
    throw new Error(`no checker for the interface document's type "${text}"`);
  }

  /** Fields given as `name, type, value, all strings` or `name, type, value as strings; \`indexed?\` boolean`. */
  private looseFieldsChecker(text: string, where: string): Checker {
    const fields: DocumentField[] = [];
    for (const group of text.split(";")) {
      const match = /^(.*?),? (?:all|as) (strings)$|^(.*?) (boolean)$/.exec(group.trim());
      if (!match) throw new Error(`unreadable field group in the interface document: ${group}`);
      const [names, type] = match[1] ? [match[1], "string"] : [captured(match, 3), "boolean"];
      for (const name of names.split(",")) fields.push({ name: name.trim().replace(/`/g, ""), type });
    }
    return this.fieldsChecker(fields, undefined, where);
  }

  private sameShapeAs(field: string, where: string): Checker {
    for (const fields of this.document.objects.values()) {
      const same = fields.find((candidate) => candidate.name === field);
      if (same) return this.typeChecker(same.type, where);
    }
    throw new Error(`"same shape as ${field}": no field ${field} in the interface document`);
  }

  /** A type named by reference: `address object`, `tag entries`, `token transfer`, `action`... */
  private referenceChecker(name: string, where: string): Checker {
    const singular = name.replace(/ entries$/, " entry").replace(/s$/, "");
    const object = [name, singular].find((candidate) => this.document.objects.has(candidate));
    if (!object) throw new Error(`the interface document defines no object "${name}"`);
    // Resolved when used, so that objects may refer to each other (transaction → token transfer → token).
    return (value, at, found) => this.fieldsChecker(this.fields(object), object, where)(value, at, found);
  }
}
