package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tether.client.ClientConfig;
import dev.tether.cluster.EpsilonGreedySettings;
import dev.tether.internal.TetherProperties;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md against the code: the keys a runtime and a server read when they are built
 * (recorded as they are looked up, defaults in force) are exactly the keys the page's tables list
 * above its Spring Boot section, which the starter's own test checks.
 */
class ConfigurationReferenceTest {
  private static final Path REFERENCE = Path.of("..", "docs", "configuration.md");
  private static final Pattern ROW_KEY = Pattern.compile("^\\| `(tether\\.[^`]+)`");

  @Test
  void everyKeyTheRuntimeAndServerReadIsInTheReference() throws IOException {
    Set<String> missing = keysReadWhenBuilding();
    missing.removeAll(documentedCoreKeys());
    assertThat(missing).as("read by the code but not listed in docs/configuration.md").isEmpty();
  }

  @Test
  void everyKeyTheReferenceListsIsReadByTheRuntimeOrServer() throws IOException {
    Set<String> stale = documentedCoreKeys();
    stale.removeAll(keysReadWhenBuilding());
    assertThat(stale).as("listed in docs/configuration.md but read by nothing").isEmpty();
  }

  private static Set<String> keysReadWhenBuilding() {
    RecordingProperties client = new RecordingProperties();
    ClientConfig.from(client);
    EpsilonGreedySettings.from(client);
    RecordingProperties server = new RecordingProperties();
    ServerProperties.parse(new TetherProperties(server));
    Set<String> keys = new TreeSet<>(client.read);
    keys.addAll(server.read);
    return keys;
  }

  private static Set<String> documentedCoreKeys() throws IOException {
    Set<String> keys = new TreeSet<>();
    for (String line : Files.readAllLines(REFERENCE)) {
      if (line.startsWith("## Spring Boot starter")) {
        break;
      }
      Matcher m = ROW_KEY.matcher(line);
      if (m.find()) {
        keys.add(m.group(1));
      }
    }
    assertThat(keys).as("rows read from " + REFERENCE.toAbsolutePath()).isNotEmpty();
    return keys;
  }

  /** Remembers every key looked up in it, found or not. */
  private static final class RecordingProperties extends Properties {
    final Set<String> read = new TreeSet<>();

    @Override
    public String getProperty(String key) {
      read.add(key);
      return super.getProperty(key);
    }

    @Override
    public String getProperty(String key, String defaultValue) {
      read.add(key);
      return super.getProperty(key, defaultValue);
    }
  }
}
