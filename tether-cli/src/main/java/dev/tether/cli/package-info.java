/**
 * The {@code tether} command (picocli): {@code serve}, {@code call}, {@code status}, {@code bench}
 * and {@code demo}. Commands parse options and print; the demo's runs live in {@code cli.demo} and
 * its server in {@code cli.kv}. Uses only tether-core's exported packages.
 */
package dev.tether.cli;
