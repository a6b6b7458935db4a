// Entry point of n8n-nodes-gen-gateway. n8n loads the classes from the paths in package.json's "n8n"
// section; these exports let tests and other code import them from the package root.
export { GenGatewayImageSubmit } from './nodes/GenGatewayImageSubmit/GenGatewayImageSubmit.node';
export { GenGatewayTaskWait } from './nodes/GenGatewayTaskWait/GenGatewayTaskWait.node';
export { GenGatewayVideoCreate } from './nodes/GenGatewayVideoCreate/GenGatewayVideoCreate.node';
export { GenGatewayDownloadResult } from './nodes/GenGatewayDownloadResult/GenGatewayDownloadResult.node';
export { GenGatewayChat } from './nodes/GenGatewayChat/GenGatewayChat.node';
export { GenGatewayResponses } from './nodes/GenGatewayResponses/GenGatewayResponses.node';
export { GenGatewayPricing } from './nodes/GenGatewayPricing/GenGatewayPricing.node';
export { LmChatGenGateway } from './nodes/LmChatGenGateway/LmChatGenGateway.node';
export { GenGatewayApi } from './credentials/GenGatewayApi.credentials';
