/**
 * Writes the settings reference of docs/configuration.md from the configuration schemas and their words
 * (lib/boot/settings-words.ts); `lib/boot/settings-reference.test.ts` fails until it has run after a change.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import {
  CONFIGURATION_PAGE,
  readConfigurationPage,
  settingsReference,
  withReference,
} from "@/lib/boot/settings-reference";

const root = path.resolve(import.meta.dirname, "..");
const before = readConfigurationPage(root);
const after = withReference(before, settingsReference());
writeFileSync(path.join(root, CONFIGURATION_PAGE), after);
console.log(before === after ? `${CONFIGURATION_PAGE} was up to date` : `${CONFIGURATION_PAGE} written`);
