package dev.tether.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Spring Boot section of docs/configuration.md lists exactly the keys the starter binds itself
 * (the setters of {@link TetherBootProperties}' server and client, as Boot spells them); core's
 * keys are checked against the rest of the page by core's own test, and the core keys the starter's
 * metadata offers IDEs must be among them.
 */
class StarterKeysAreDocumentedTest {
  private static final Path REFERENCE = Path.of("..", "docs", "configuration.md");
  private static final Pattern ROW_KEY = Pattern.compile("^\\| `(tether\\.[^`]+)`");

  @Test
  void theReferencesSpringBootSectionListsExactlyTheStartersOwnKeys() throws IOException {
    Set<String> bound = new TreeSet<>();
    bound.addAll(keys("tether.server.", TetherBootProperties.Server.class));
    bound.addAll(keys("tether.clients.<bean>.", TetherBootProperties.Client.class));

    assertThat(documentedKeys(true)).isEqualTo(bound);
  }

  @Test
  void everyCoreKeyTheMetadataOffersIdesIsOneTheReferenceLists() throws IOException {
    Set<String> offered = new TreeSet<>();
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      for (JsonNode p : new ObjectMapper().readTree(in).get("properties")) {
        offered.add(p.get("name").asText());
      }
    }
    offered.removeAll(Set.of("tether.server.endpoints", "tether.clients"));
    Set<String> documented = documentedKeys(false);

    assertThat(offered).isNotEmpty().isSubsetOf(documented);
  }

  private static Set<String> keys(String prefix, Class<?> bean) {
    Set<String> keys = new TreeSet<>();
    for (Method m : bean.getMethods()) {
      if (m.getName().startsWith("set") && m.getParameterCount() == 1) {
        keys.add(prefix + kebab(m.getName().substring(3)));
      }
    }
    return keys;
  }

  private static String kebab(String property) {
    StringBuilder out = new StringBuilder();
    for (char c : property.toCharArray()) {
      if (Character.isUpperCase(c)) {
        if (out.length() > 0) {
          out.append('-');
        }
        out.append(Character.toLowerCase(c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /** The keys of the Spring Boot section, or of every other section. */
  private static Set<String> documentedKeys(boolean starterSection) throws IOException {
    Set<String> keys = new TreeSet<>();
    boolean inSection = false;
    for (String line : Files.readAllLines(REFERENCE)) {
      if (line.startsWith("## ")) {
        inSection = line.startsWith("## Spring Boot starter") == starterSection;
        continue;
      }
      Matcher m = ROW_KEY.matcher(line);
      if (inSection && m.find()) {
        keys.add(m.group(1));
      }
    }
    return keys;
  }
}
