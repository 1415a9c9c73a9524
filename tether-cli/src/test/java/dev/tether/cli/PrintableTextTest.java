package dev.tether.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** What a server sends is printed without the characters that would take over the terminal. */
class PrintableTextTest {
  @Test
  void controlAndDirectionCharactersAreReplacedAndTheRestKept() {
    assertThat(PrintableText.of("ok \u001b[2J\u001b]0;owned\u0007 done\r\n\u009b1m\u202egnp.exe"))
        .isEqualTo("ok ?[2J?]0;owned? done???1m?gnp.exe");
    assertThat(PrintableText.of("plain café, 127.0.0.1:7000"))
        .isEqualTo("plain café, 127.0.0.1:7000");
  }

  @Test
  void multiLineMessagesKeepTheirLineFeedsAndLoseTheRest() {
    assertThat(PrintableText.keepingLines("first\r\n\u001b[1Asecond"))
        .isEqualTo("first?\n?[1Asecond");
  }

  @Test
  void statusTablesPrintNoControlCharactersAServerPutInItsStatus() throws Exception {
    String hostile =
        "{\"clients\":[{\"nodes\":[],\"connections\":[{\"endpoint\":\"tcp -h x\\u001b[31m -p 1\","
            + "\"state\":\"ACTIVE\\u001b[2J\",\"lastError\":\"boom\\u001b]0;title\\u0007\\r\\n\"}]}],"
            + "\"servers\":[{\"endpoints\":[\"tcp\\u009b\"],\"state\":\"RUNNING\"}]}";

    String printed = StatusTables.render(new ObjectMapper().readTree(hostile));

    assertThat(printed)
        .doesNotContain("\u001b", "\u0007", "\r", "\u009b")
        .contains("boom?]0;title?");
  }
}
