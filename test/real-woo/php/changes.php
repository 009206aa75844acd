// A day of a shop's life after the first sync, through WooCommerce's API ($args = {seed, bulk}): trashed
// orders restored, counted orders trashed and force-deleted, pending orders paid, paid orders cancelled,
// refunds added (dated now, as WooCommerce dates them: days after their order) and deleted (which does not
// touch the parent order), and a bulk edit stamping `bulk` orders with one second, now.
mt_srand($args['seed']);
$all = fn ($status) => wc_get_orders(['type' => 'shop_order', 'status' => $status, 'limit' => -1, 'orderby' => 'id', 'order' => 'ASC', 'return' => 'ids']);
$some = function (array $ids, int $n) { shuffle($ids); return array_slice($ids, 0, $n); };
$done = ['untrashed' => [], 'trashed' => [], 'deleted' => [], 'refunded' => [], 'refunds_deleted' => []];
foreach ($some($all('trash'), 3) as $id) { wc_get_order($id)->untrash(); $done['untrashed'][] = $id; }
$paid = $some($all(['completed', 'processing']), 12);
foreach (array_slice($paid, 0, 4) as $id) { wc_get_order($id)->delete(false); $done['trashed'][] = $id; }
foreach (array_slice($paid, 4, 2) as $id) { wc_get_order($id)->delete(true); $done['deleted'][] = $id; }
foreach (array_slice($paid, 6, 4) as $id) {
  wc_create_refund(['order_id' => $id, 'amount' => '1.25', 'reason' => 'late']);
  $done['refunded'][] = $id;
}
foreach (array_slice($paid, 10, 2) as $id) wc_get_order($id)->update_status('cancelled');
foreach ($some($all('pending'), 4) as $id) wc_get_order($id)->update_status('processing');
$withRefunds = array_values(array_filter($all(['completed', 'processing', 'on-hold']), fn ($id) => count(wc_get_order($id)->get_refunds()) > 0));
foreach ($some($withRefunds, 2) as $id) {
  $refund = wc_get_order($id)->get_refunds()[0];
  $done['refunds_deleted'][] = $refund->get_id();
  $refund->delete(true);
}
$bulk = $some($all(array_keys(wc_get_order_statuses())), $args['bulk']);
rw_set_modified($bulk, time());
$done['bulk'] = count($bulk);
echo json_encode($done);
