package dev.tether;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * tether-bom pins every module an application may depend on: each module of the build except the
 * programs (cli, bench, chaos), the test-only modules (the testkit's tests, the Java 25 tests) and
 * the BOM itself, at the build's own version, and nothing else.
 */
class TetherBomTest {
  private static final Set<String> NOT_LIBRARIES =
      Set.of(
          "tether-bom",
          "tether-cli",
          "tether-bench",
          "tether-chaos",
          "tether-testkit-tests",
          "tether-virtual-threads-it");

  @Test
  void theBomPinsEveryLibraryModuleAtTheBuildsVersionAndNothingElse() throws Exception {
    Document root = read(Path.of("..", "pom.xml"));
    Document bom = read(Path.of("..", "tether-bom", "pom.xml"));

    Set<String> libraries = new TreeSet<>();
    NodeList modules = root.getElementsByTagName("module");
    for (int i = 0; i < modules.getLength(); i++) {
      String module = modules.item(i).getTextContent().trim();
      if (!NOT_LIBRARIES.contains(module)) {
        libraries.add(module);
      }
    }
    Set<String> pinned = new TreeSet<>();
    NodeList dependencies = bom.getElementsByTagName("dependency");
    for (int i = 0; i < dependencies.getLength(); i++) {
      Element d = (Element) dependencies.item(i);
      assertThat(text(d, "groupId")).isEqualTo("dev.tether");
      assertThat(text(d, "version")).isEqualTo("${project.version}");
      pinned.add(text(d, "artifactId"));
    }

    assertThat(pinned).isEqualTo(libraries);
    assertThat(text(bom.getDocumentElement(), "version"))
        .isEqualTo(text(root.getDocumentElement(), "version"));
  }

  private static Document read(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }

  /** The text of {@code parent}'s own child element {@code name}. */
  private static String text(Element parent, String name) {
    for (org.w3c.dom.Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e.getTextContent().trim();
      }
    }
    throw new AssertionError(parent.getTagName() + " has no <" + name + ">");
  }
}
