// Shapes a shop's history through WooCommerce's own API, in one process: $args = {seed, from (local Y-m-d),
// days, count, trash, bulk: [group sizes]}. Orders are created back-dated over the window (which crosses a DST
// change), some in USD; partial refunds and full refunds (status refunded) come days after their order; a few
// orders are trashed. Then every order gets a modified date of its own history and the bulk groups one shared
// second each, as a bulk-edit plugin writes them. Echoes the ids of the bulk groups.
mt_srand($args['seed']);
$now = time();
$start = (new DateTimeImmutable($args['from'] . ' 00:00:00', wp_timezone()))->getTimestamp();
$span = $args['days'] * 86400;
$statuses = ['completed' => 40, 'processing' => 20, 'on-hold' => 10, 'cancelled' => 8, 'pending' => 8, 'refunded' => 8, 'failed' => 6];
$pick = function () use ($statuses) {
  $r = mt_rand(1, array_sum($statuses));
  foreach ($statuses as $s => $w) { if (($r -= $w) <= 0) return $s; }
};
$cents = fn ($c) => sprintf('%d.%02d', intdiv($c, 100), $c % 100);
$refundAt = fn ($created) => min($created + mt_rand(1, 12) * 86400 + mt_rand(0, 86399), $now - 3600);
$ids = [];
for ($i = 0; $i < $args['count']; $i++) {
  $status = $pick();
  $created = $start + mt_rand(0, $span - 1);
  $totalCents = mt_rand(500, 50000);
  $o = new WC_Order();
  $o->set_currency(mt_rand(1, 10) === 1 ? 'USD' : 'EUR');
  $o->set_billing_email("buyer$i@example.test");
  $o->set_total($cents($totalCents));
  $o->set_date_created($created);
  $o->set_status($status === 'refunded' ? 'completed' : $status);
  $o->save();
  $ids[] = $o->get_id();
  if ($status === 'refunded') {
    // A refund of the whole total: WooCommerce itself moves the order to `refunded`.
    $r = wc_create_refund(['order_id' => $o->get_id(), 'amount' => $cents($totalCents), 'reason' => 'returned']);
    $r->set_date_created($refundAt($created)); $r->save();
  } elseif (in_array($status, ['completed', 'processing'], true) && mt_rand(1, 4) === 1) {
    for ($k = mt_rand(1, 2); $k > 0; $k--) {
      $r = wc_create_refund(['order_id' => $o->get_id(), 'amount' => $cents(intdiv($totalCents, 5) + $k), 'reason' => 'partial']);
      $r->set_date_created($refundAt($created)); $r->save();
    }
  }
}
shuffle($ids);
foreach (array_slice($ids, 0, $args['trash']) as $id) wc_get_order($id)->delete(false);
// History: each order last modified some hours after its creation (or its last refund), never in the future.
rw_set_modified_each($ids, fn ($o) => min($o->get_date_created()->getTimestamp() + mt_rand(600, 3 * 86400), $now - 1200));
$groups = [];
$offset = $args['trash'];
foreach ($args['bulk'] as $g => $size) {
  $group = array_slice($ids, $offset, $size);
  $offset += $size;
  rw_set_modified($group, $now - 600 + 60 * $g);
  $groups[] = $group;
}
echo json_encode(['orders' => count($ids), 'groups' => $groups]);
